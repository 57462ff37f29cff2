// PyTorch's default partition, used instead of the min cut when nothing is
// required by the backward (no tangent reaches any node): nodes are placed by
// their partitioner tags (everything up to the last is_forward node, primal
// or forward seed is forward), and every forward value the backward reads is
// saved, except that multi-output nodes are skipped for their getitems and a
// tensor whose backward users are all symbolic sizes saves those sizes.
#pragma once

#include <vector>

#include "analysis/classify.h"
#include "graph/graph.h"

namespace pt {

struct DefaultPartition {
  std::vector<NodeId> saved_values;     // in decision order, deduplicated
  std::vector<NodeId> saved_sym_nodes;  // in decision order, deduplicated
};

// Throws InputError when a forward call_function produces neither a tensor,
// a symbol, an opaque object nor a tuple read through getitems.
DefaultPartition default_partition(const Graph& g);

}  // namespace pt
