// Fusion groups for the bandwidth model (docs/design.md section 6): which nodes of
// one pass (the extracted forward or backward graph) a fusing compiler would
// run in one kernel, and which values leave their kernel and are stored.
//
// Roles, walked in graph order:
//   Memory     inputs of the pass, placeholders, get_attr, getitems of a
//              stored tuple: already in memory, loaded by their readers
//   Alias      a view of something in memory: no kernel, no bytes of its own
//   Host       symbolic scalars and other non-tensor results: no kernel
//   OwnKernel  compute-intensive and other non-fusible ops: a kernel each
//   Fused      fusible ops (PyTorch's fusible set: the recompute allowlist
//              plus random ops; constant_pad_nd with pad_is_pointwise
//              unless a matmul reads it; views
//              of fused values): they join the kernel of one of their fused
//              producers, or start one
// A fused node may not join a kernel it depends on through something outside
// that kernel (that would be a cycle), nor, with reductions_end_kernels, a
// kernel whose reduction result it reads: the reduction ends its kernel, and
// a consumer of both a reduction's result and its input starts a new kernel
// that reads the input again (bandwidth_model.h says how). With
// row_reduction_readers_join, a reduction along rows of at most 1024
// elements is the exception: its readers, through a getitem of its tuple
// too, join its kernel. With
// realize_reused_values, a fused value that Inductor's lowering would realize
// (several readers and more than 4 buffers read, or more than 8) is stored
// when another kernel reads it; with realize_large_expressions, so is one
// whose inlined expression exceeds Inductor's op count. A realized value
// that only its own kernel reads is a buffer of that kernel, never written
// to memory (`realized`, not `stored`). With merge_sibling_kernels, kernels
// that read the same buffer run as one (sibling_fusion.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "analysis/node_op_classes.h"
#include "analysis/subgraph.h"
#include "graph/graph.h"
#include "estimate/bandwidth_options.h"

namespace pt {


enum class NodeRole : uint8_t { Absent, Memory, Alias, Host, OwnKernel, Fused };

// Nodes listed by kernel: `kernel_of` gives each node's kernel (-1 for
// none) among `kernels`; in the result, kernel k's nodes, in graph order,
// are list[start[k], start[k + 1]) (a counting sort: one array, not a
// vector per kernel, which at 10^6 nodes were 220,000 allocations).
struct KernelLists {
  std::vector<int32_t> start;  // kernels + 1 entries
  std::vector<NodeId> list;

  std::span<const NodeId> of(int32_t k) const {
    const auto at = static_cast<size_t>(k);
    return std::span<const NodeId>(list).subspan(static_cast<size_t>(start[at]),
                                                 static_cast<size_t>(start[at + 1] - start[at]));
  }
};
KernelLists list_by_kernel(const std::vector<int32_t>& kernel_of, size_t kernels);

struct FusionGroups {
  std::vector<NodeRole> role;     // per joint node; Absent outside the pass
  std::vector<int32_t> kernel;    // home kernel of OwnKernel and Fused nodes, -1 else
  Flags reduction;    // Fused node tagged `reduction`
  Flags stored;       // written to memory by its kernel
  // A fused value Inductor's lowering realizes (realize_reused_values): a
  // buffer of its own, stored only when another kernel reads it. Readers in
  // its kernel read that buffer, not what it is computed from, which decides
  // what they may write in place (peak_memory.h's Materialized).
  Flags realized;
  // Per kernel, its nodes in graph order (list_by_kernel of `kernel`).
  KernelLists by_kernel;
  // Per node, Inductor lays its 4-D value out channels-last (group_kernels'
  // `channels_last`); empty where it lays none out.
  Flags channels_last;
  // Per node, a forward node this pass computes again (group_kernels'
  // `recomputed`); empty where it recomputes none.
  Flags recomputed;

  std::span<const NodeId> members(int32_t k) const { return by_kernel.of(k); }
  int32_t kernel_count() const {
    return by_kernel.start.empty() ? 0 : static_cast<int32_t>(by_kernel.start.size() - 1);
  }
};

// The node a view or getitem reads: its first positional node argument.
NodeId view_base(const Node& n);

// Follows fused views down to the fused value they show (a reduction is its
// own base). An item of a view that returns several (a split's or chunk's
// halves) views that view's base too: the peak simulation counts such an
// item's bytes in the base's buffer, so storing the item must store the
// base. Stored as itself, ShuffleNetV2's saved channel halves held memory
// that no kernel allocated, and its backward freed 84 MB more than it held.
NodeId fused_base_of(const Graph& g, const NodeOpClasses& ops, const FusionGroups& f, NodeId id);

// Inductor unrolls a reduction over fewer than config.unroll_reductions_threshold
// elements per output into a pointwise op (unroll_small_reductions).
inline constexpr uint64_t kUnrollReductionsThreshold = 8;
// The elements per output of a reduction Inductor unrolls, 0 for any other
// node (and for a size unknown here).
uint64_t unrolled_extent(const Graph& g, const std::vector<uint64_t>& numel, const BandwidthOptions& o, NodeId id);

// Whether the pass runs `id`, once grouped: every node the pass runs has a
// role, every other node is Absent. One byte per node: the kernel searches
// ask on every edge, where reading the Node (is it the output node?) and
// the pass's bit mask cost more than the search itself on large graphs.
inline bool runs_in_pass(const FusionGroups& f, NodeId id) { return id >= 0 && f.role[id] != NodeRole::Absent; }

// `pass`: the keep and input masks of the extracted graph; `outputs`: what it
// returns (forward outputs and saved values, or gradients); `numel`: each
// node's Node::numel (value_numel.h), for the sibling fusion;
// `channels_last`: the graph's channels_last_values under `o`
// (inductor_layout.h), copied into the groups.
// `recomputed`: the forward nodes the pass computes again (the backward's).
FusionGroups group_kernels(const Graph& g, const Subgraph& pass, const std::vector<NodeId>& outputs,
                           const NodeOpClasses& ops, const std::vector<uint64_t>& numel, const Flags& channels_last,
                           const BandwidthOptions& o, const std::vector<NodeId>& recomputed = {});

}  // namespace pt
