// Runtime estimate of a node for the memory-budget knapsack (docs/design.md
// section 5): PyTorch's estimate_runtime with activation_memory_budget_
// runtime_estimator = "flops", i.e. max(FLOPs, 1) with FLOPs counted as
// torch.utils.flop_counter.FlopCounterMode counts the node's op.
//
// Shapes are the `val.tensor.shape` of the node's tensor arguments (symbolic
// dims already at their hint) and of the node's own output. Arguments are
// read by schema position, as FlopCounterMode receives them; an argument the
// exporter wrote as a keyword is found by its schema name.
//
// Ops with a formula (by overload packet; see flop_formulas.h):
//   aten.mm, aten.addmm (args 1, 2), aten._scaled_mm   2*M*N*K
//   aten.bmm, aten.baddbmm (args 1, 2)                  2*B*M*N*K
//   aten.convolution, aten._convolution, aten.cudnn_convolution,
//   aten._slow_conv2d_forward                           conv: `transposed` is
//       positional arg 6 whatever the op — for cudnn_convolution that is its
//       `benchmark` flag (PyTorch reads it the same way); _slow_conv2d_forward
//       has no arg 6 and counts as not transposed (PyTorch raises TypeError)
//   aten.convolution_backward                           terms of output_mask
//   aten._scaled_dot_product_{efficient,flash,cudnn}_attention       2 bmm
//   aten._scaled_dot_product_{efficient,flash,cudnn}_attention_backward 5 bmm
//   aten._flash_attention_forward, aten._efficient_attention_forward  2 bmm
//   aten._flash_attention_backward, aten._efficient_attention_backward 5 bmm
// The last four read query/key/value positionally as [b, h, s, d] although
// those kernels take [batch, seq, heads, dim]: PyTorch's count mixes up heads
// and sequence there, and so does this one. With cumulative sequence offsets
// (nested/jagged inputs) each of the offsets' size(0) - 1 sequences counts at
// its maximum length (max_q / max_k), as FlopCounterMode does on fake tensors.
// Every other op counts 0 FLOPs (runtime 1). PyTorch would also decompose
// CompositeImplicitAutograd ops and count their parts; such ops do not occur
// in post-autograd joint graphs and are not modelled.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace pt {

// FLOPs of the node's op, counted exactly (128 bits) and correctly rounded to
// a double, like Python's int -> float; 0 for ops without a formula and for
// nodes that are not call_function. Throws InputError naming the node when
// an argument the formula needs is missing or has the wrong rank, or the
// count exceeds 128 bits.
double count_flops(const Graph& g, NodeId id);

// count_flops, or 0 when the formula cannot read the node's shapes: for
// reports, which show time and FLOPs of graphs the budget never estimates.
// A count beyond 128 bits still throws.
double count_flops_if_readable(const Graph& g, NodeId id);

// max(count_flops, 1).
double estimate_runtime(const Graph& g, NodeId id);

}  // namespace pt
