// Elements of a node's value (Node::numel: shapes at their hints, read at
// validation): what the bandwidth model's demand and the kernel grouping
// count in.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace pt {

// Node::numel of every node as one compact table (a tensor's numel, a
// tuple's summed over its tensors, 0 for anything else). The kernel
// grouping, its sibling fusion and the coster of both passes read it on
// every edge: 8 bytes a node stay in cache where whole Nodes do not.
std::vector<uint64_t> value_numels(const Graph& g);

// a x num / den, rounded up, without overflow in between (elements or bytes
// of a part of a value: `a` of its `den` elements, `num` its bytes); 0 when
// den is 0.
inline uint64_t scaled(uint64_t a, uint64_t num, uint64_t den) {
  if (den == 0) return 0;
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * num;
  return static_cast<uint64_t>((p + den - 1) / den);
}

}  // namespace pt
