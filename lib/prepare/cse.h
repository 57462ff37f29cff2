// Common-subexpression elimination (docs/design.md section 3, rule 2; PyTorch's
// fx_graph_cse), one pass in graph order. A call_function merges into the
// earlier node with the same key (cse_key.h) in the same mutation region.
// Never merged and never a merge target: placeholders, get_attr, the output
// node, targets whose packet is in `ops.cse_rand`, aten.empty, and nodes whose
// storage aliases a graph output (output_alias.h). Mutation regions: a
// counter steps at every mutating node (mutation.h); a duplicate seen in a
// later region replaces the remembered node, so later duplicates merge into
// it. Turned off as a whole by the setting `cse`.
#pragma once

#include <vector>

#include "settings/op_classes.h"
#include "graph/graph.h"

namespace pt {

// `present`: the nodes that survived dead-code elimination; the others are
// skipped (they neither merge nor count as mutations). Returns, per node, the
// node it is merged into, or the node itself when it is kept (or absent).
std::vector<NodeId> cse_merge_targets(const Graph& g, const Flags& present, const OpClasses& ops);

}  // namespace pt
