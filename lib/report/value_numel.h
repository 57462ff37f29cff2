// Elements of a node's value, from its tensor metadata (shapes at their
// hints): what the bandwidth model's demand and the kernel grouping count in.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace pt {

// A tensor's numel, a tuple's summed over its tensors, 0 for anything else.
uint64_t value_numel(const Graph& g, NodeId id);

}  // namespace pt
