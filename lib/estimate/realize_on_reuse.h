// Inductor's realize-on-reuse, applied to a pass's fusion groups
// (fusion_groups.h). Inductor inlines a pointwise value into every reader
// unless its lowering realizes it (GraphLowering.run_node,
// StorageBox.mark_reuse in torch/_inductor): a value with several readers
// whose inlined computation reads more than 4 buffers, any value that reads
// more than 8, and (realize_large_expressions) one whose inlined expression
// exceeds 30 ops. A realized value is a buffer of its own; it is stored when
// a kernel other than its own reads it or computes one of its readers
// again. Off with realize_reused_values=false (group_kernels then skips
// this).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/node_op_classes.h"
#include "estimate/bandwidth_options.h"
#include "estimate/fusion_groups.h"
#include "graph/graph.h"

namespace pt {

// Marks `f.realized` and the `f.stored` that follow from it; `f` holds the
// roles, kernels, reductions and stores of the grouping so far.
void realize_on_reuse(const Graph& g, const NodeOpClasses& ops, const std::vector<uint64_t>& numel,
                      const BandwidthOptions& o, FusionGroups& f);

}  // namespace pt
