// Horizontal fusion for the bandwidth model (fusion_groups.h): Inductor's
// scheduler fuses two kernels that share no producer-consumer edge when they
// read the same buffer (Scheduler.score_fusion_memory > 0) and fusing them
// creates no cycle, so the buffer is read once. That is what a recomputation
// in the backward usually meets: the recomputed GELU output and the GELU
// backward both read the saved matmul output (one kernel,
// triton_poi_fused_gelu_gelu_backward), a recomputed LayerNorm output and the
// LayerNorm backward both read the saved input and statistics. Without it the
// model charged every such recomputation a second read of its inputs, about
// twice the extra traffic an H200 measured for memory budgets on the MLP
// models (docs/bandwidth_model.md).
//
// Two fused kernels merge when
//   - both read a buffer from memory whose element count is the largest
//     either of them reads (same iteration space: Inductor fuses only
//     kernels whose loops agree); two sums across rows (column_reduction.h)
//     only where one of them reads nothing the other does not, counting a
//     value stored or realized by another kernel as a buffer it loads (a
//     LayerNorm's weight and bias gradients, not two blocks' gradients
//     that share the stage's output gradient),
//   - neither reads the other's reduction result (with
//     reductions_end_kernels, such a reader stays in a kernel of its own),
//   - together they have at most 64 nodes (Inductor's max_fusion_size),
//   - they lie at most 64 scheduler nodes (taken as 256 graph nodes) apart
//     in the pass PyTorch emits, where a recomputed node runs just before
//     its first reader (Inductor's can_fusion_increase_peak_memory),
//   - no path leads from one of their nodes to another through a node
//     outside them (found within join_search_limit visits, else no merge).
// Off: --bandwidth-option merge_sibling_kernels=false.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "estimate/bandwidth_options.h"
#include "estimate/fusion_groups.h"

namespace pt {

// `f` holds the roles (Absent: not in the pass) and home kernels of the
// vertical grouping (members and stores not yet decided), `first` each
// kernel's first node, `numel` each node's Node::numel (value_numel.h).
// Returns, per kernel, the kernel it runs in afterwards: ids 0..m-1, in the
// order of the kernels' first nodes.
// `recomputed`: the forward nodes this pass computes again, graph order.
// `buffers`: per node, a fused value that is a buffer of its own (stored or
// realized) whatever the merges; a sum across rows loads it.
std::vector<int32_t> merge_sibling_kernels(const Graph& g, const FusionGroups& f,
                                           const std::vector<NodeId>& first, const std::vector<uint64_t>& numel,
                                           const std::vector<NodeId>& recomputed, const BandwidthOptions& o,
                                           const Flags& buffers);

}  // namespace pt
