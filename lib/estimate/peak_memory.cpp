#include "estimate/peak_memory.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "analysis/node_op_classes.h"
#include "estimate/backward_order.h"
#include "estimate/pass_simulation.h"
#include "estimate/buffer_reuse.h"
#include "estimate/inductor_padding.h"
#include "estimate/kernel_order.h"
#include "estimate/matmul_at_add.h"
#include "estimate/pass_trace.h"
#include "estimate/scatter_copies.h"

namespace pt {

namespace {


// Whether `id`, not itself a graph input, is a view (or getitem) chain
// ending at one: `graph_input` marks the graph's inputs.
bool views_graph_input(const Graph& g, const NodeOpClasses& ops, const Flags& graph_input, NodeId id) {
  if (graph_input[id]) return false;
  NodeId x = id;
  while (!graph_input[x]) {
    const Node& n = g[x];
    if (n.positional_inputs.empty() || !(ops.is_view(x) || n.packet == "operator.getitem")) return false;
    x = n.positional_inputs[0];
  }
  return true;
}

}  // namespace

ForwardPeak simulate_forward_peak(const Graph& g, const Classification& c, const Extraction& e,
                                  const NodeOpClasses& node_ops, const Materialized& materialized,
                                  MemoryTimeline* timeline) {
  const NodeId count = g.size();
  ForwardPeak f;
  const PassSimulation sim{g, node_ops};

  for (NodeId id : c.inputs) f.input_bytes += g[id].size_bytes;
  for (NodeId id : e.fw_saved_outputs()) f.saved_bytes += g[id].size_bytes;

  // Forward: primals and seeds are live from the start and held throughout;
  // forward outputs and saved values outlive the pass.
  std::vector<NodeId> fw_order;
  for (NodeId id = 0; id < count; ++id) {
    if (e.forward.keep[id] && id != g.output_node()) fw_order.push_back(id);
  }
  Flags fw_retained(count, false);
  for (NodeId id : c.fwd_outputs) {
    if (id != kNoNode) fw_retained[id] = true;
  }
  for (NodeId id : e.fw_saved_outputs()) fw_retained[id] = true;
  for (NodeId id : c.inputs) fw_retained[id] = true;
  if (materialized.matmul_at_add) run_matmuls_at_their_adds(g, node_ops, fw_retained, fw_order);
  f.live_after = f.input_bytes;
  f.peak_bytes = f.live_after;
  f.peak_at = fw_order.empty() ? "" : std::string(g[fw_order.front()].name);
  PassTrace trace;
  sim.run(fw_order, e.forward.is_input, fw_retained, materialized.forward, materialized.forward_realized, materialized,
          {}, {}, f.live_after, f.peak_bytes, f.peak_at, timeline ? &trace : nullptr);
  if (timeline) record_forward(g, c, e, node_ops, std::move(fw_order), trace, *timeline);
  return f;
}

PeakMemory simulate_backward_peak(const Graph& g, const Classification& c, const Extraction& e,
                                  const NodeOpClasses& node_ops, const Materialized& materialized,
                                  const ForwardPeak& forward, MemoryTimeline* timeline) {
  return simulate_backward_peak(g, c, e, node_ops, materialized, materialized.backward,
                                materialized.backward_realized, materialized.backward_kernel, forward, timeline);
}

PeakMemory simulate_backward_peak(const Graph& g, const Classification& c, const Extraction& e,
                                  const NodeOpClasses& node_ops, const Materialized& rules, const Flags& stored,
                                  const Flags& realized, const std::vector<int32_t>& kernel,
                                  const ForwardPeak& forward, MemoryTimeline* timeline) {
  const NodeId count = g.size();
  PeakMemory m;
  const PassSimulation sim{g, node_ops};
  m.input_bytes = forward.input_bytes;
  m.saved_bytes = forward.saved_bytes;
  m.forward_peak_bytes = forward.peak_bytes;

  // Backward: what the forward left (inputs, saved values, forward outputs)
  // plus the tangents. Saved values are freed after their last reader;
  // gradients are held to the end.
  std::vector<NodeId> bw_order = e.bw_inputs();
  Flags bw_input(count, false);
  for (NodeId id : bw_order) bw_input[id] = true;
  append_backward_order(g, e, bw_input, rules.order_from_first_tangent_reader, bw_order);
  Flags bw_retained(count, false);
  for (NodeId id : c.bwd_outputs) {
    if (id != kNoNode) bw_retained[id] = true;
  }
  for (NodeId id : c.inputs) bw_retained[id] = true;
  // A saved view of a graph input (a weight's permute) holds no memory of its
  // own: in the forward it aliases the input, whose bytes are counted once
  // and held for the whole step. As a backward input it would be freed after
  // its last reader, taking off the live total bytes it never added (on
  // sac_mlp a plan saving the eight weights' views lost them all at its
  // peak, half of it). Held like the input it views; no setting: it is
  // bookkeeping, not a heuristic.
  Flags graph_input(count, false);
  for (NodeId id : c.inputs) graph_input[id] = true;
  for (NodeId id : e.bw_inputs()) {
    if (views_graph_input(g, node_ops, graph_input, id)) bw_retained[id] = true;
  }
  // A saved value that a forward output is or views stays with the caller,
  // who holds that output through the backward: AOTAutograd donates to the
  // backward only saved buffers that no output aliases, so the backward
  // neither frees it nor writes its gradient into it in place. OPT's loss
  // graph returns its logits and saves them: its logits gradient took
  // them over, and the step's peak was 0.77 GB (21%) short on the H100.
  // Bookkeeping of what is held, no setting.
  for (NodeId id : c.fwd_outputs) {
    for (NodeId x = id; x != kNoNode;) {
      if (bw_input[x]) bw_retained[x] = true;
      const Node& n = g[x];
      if (n.positional_inputs.empty() || !(node_ops.is_view(x) || n.packet == "operator.getitem")) break;
      x = n.positional_inputs[0];
    }
  }
  if (rules.matmul_at_add) run_matmuls_at_their_adds(g, node_ops, bw_retained, bw_order);
  // A kernel in a cycle of kernels that read each other runs node by node.
  if (rules.kernels_run_whole) run_kernels_whole(g, node_ops, kernel, bw_input, bw_order);
  if (rules.fills_at_readers) run_fills_at_readers(g, bw_input, bw_order);
  uint64_t live = forward.live_after;
  for (NodeId id : e.grad_inputs) {
    if (g[id].input_kind == InputKind::Tangent) live += g[id].size_bytes;
  }
  m.backward_peak_bytes = live;
  std::string bw_at = bw_order.empty() ? "" : std::string(g[bw_order.front()].name);
  Flags recomputed(count, false);
  for (NodeId id : e.recomputed) recomputed[id] = true;
  PassTrace trace;
  sim.run(bw_order, bw_input, bw_retained, stored, realized, rules, kernel, recomputed, live, m.backward_peak_bytes,
          bw_at, timeline ? &trace : nullptr);

  if (m.backward_peak_bytes > m.forward_peak_bytes) {
    m.peak_bytes = m.backward_peak_bytes;
    m.peak_at = bw_at;
    m.peak_pass = "backward";
  } else {
    m.peak_bytes = m.forward_peak_bytes;
    m.peak_at = forward.peak_at;
    m.peak_pass = "forward";
  }
  if (timeline) record_backward(g, c, e, node_ops, bw_order, trace, m.peak_pass == "backward", *timeline);
  return m;
}

PeakMemory simulate_peak_memory(const Graph& g, const Classification& c, const Extraction& e, const OpClasses& ops,
                                const Materialized& materialized, MemoryTimeline* timeline) {
  return simulate_peak_memory(g, c, e, NodeOpClasses(g, ops), materialized, timeline);
}

PeakMemory simulate_peak_memory(const Graph& g, const Classification& c, const Extraction& e,
                                const NodeOpClasses& node_ops, const Materialized& materialized,
                                MemoryTimeline* timeline) {
  return simulate_backward_peak(g, c, e, node_ops, materialized,
                                simulate_forward_peak(g, c, e, node_ops, materialized, timeline), timeline);
}

}  // namespace pt
