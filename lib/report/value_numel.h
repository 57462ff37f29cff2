// Elements of a node's value, from its tensor metadata (shapes at their
// hints): what the bandwidth model's demand and the kernel grouping count in.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace pt {

// A tensor's numel, a tuple's summed over its tensors, 0 for anything else.
uint64_t value_numel(const Graph& g, NodeId id);

// value_numel of every node, in one walk over the message. A shape read is
// several cache misses into the protobuf message; the kernel grouping, its
// sibling fusion and the coster of both passes read the numel of the same
// nodes (a fifth of the report stage's cache misses on gpt2_l96): they share
// this table instead.
std::vector<uint64_t> value_numels(const Graph& g);

}  // namespace pt
