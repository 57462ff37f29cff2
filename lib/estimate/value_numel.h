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

}  // namespace pt
