#include "estimate/bandwidth_model.h"

#include <functional>
#include <memory>
#include <utility>

#include "estimate/inductor_layout.h"
#include "estimate/pass_cost.h"
#include "estimate/value_numel.h"

namespace pt {

namespace {

// The op classes partition_graph looked up for r (under the settings
// whose op_classes `ops` are), or, for a result made without them, looked
// up here.
std::shared_ptr<const NodeOpClasses> node_ops_of(const Graph& prepared, const PartitionResult& r,
                                                 const OpClasses& ops) {
  return r.node_ops ? r.node_ops : std::make_shared<const NodeOpClasses>(prepared, ops);
}

// The peak simulation's rules from the options, without any pass's masks.
Materialized materialized_rules(const BandwidthOptions& o) {
  Materialized m;
  m.sources_live_to_readers = o.sources_live_to_readers;
  m.write_in_place = o.write_in_place;
  m.order_from_first_tangent_reader = o.backward_order_from_tangents;
  m.matmul_at_add = o.matmul_at_add;
  m.padded_buffers = o.padded_buffers;
  m.reuse_freed_buffers = o.reuse_freed_buffers;
  m.pointwise_tag_fuses = o.pointwise_tag_fuses;
  m.fuse_scatter_copies = o.fuse_scatter_copies;
  m.kernels_run_whole = o.kernels_run_whole;
  m.fills_at_readers = o.fills_at_readers;
  return m;
}

Materialized forward_materialized(const PassEstimate& forward, const BandwidthOptions& o) {
  Materialized m = materialized_rules(o);
  m.forward = forward.stored;
  m.forward_realized = forward.realized;
  return m;
}

Materialized both_materialized(const BandwidthEstimate& bw, const BandwidthOptions& o) {
  Materialized m = forward_materialized(bw.forward, o);
  m.backward = bw.backward.stored;
  m.backward_realized = bw.backward.realized;
  if (o.allocate_at_kernel_launch) m.backward_kernel = bw.backward.kernel;
  return m;
}

// What runs around the two passes' costing (estimate_bandwidth_and_peak's
// use; each may be empty):
//   with_forward(forward): once the forward is costed;
//   with_backward_groups(groups): afterwards, with the backward's kernel
//     groups.
struct AroundPasses {
  std::function<void(const PassEstimate&)> with_forward;
  std::function<void(const FusionGroups&)> with_backward_groups;
};

// estimate_bandwidth's work.
BandwidthEstimate estimate_passes(const Graph& prepared, const PartitionResult& r, const NodeOpClasses& node_ops,
                                  const Device& device, const BandwidthOptions& o, const AroundPasses& around,
                                  PassDetail detail) {
  const Extraction& e = r.extraction;
  std::vector<NodeId> fw_outputs = r.classification.fwd_outputs;
  const auto saved = e.fw_saved_outputs();
  fw_outputs.insert(fw_outputs.end(), saved.begin(), saved.end());
  BandwidthEstimate out;
  out.device = device;
  if (!o.apply_device_efficiency) {  // as costed
    out.device.memory_efficiency = out.device.matmul_efficiency = out.device.conv_efficiency = 1;
    out.device.depthwise = {};
    out.device.narrow_conv = {};
    out.device.column_reduction = {};
    out.device.atomic_add_seconds = 0;
    out.device.attention = {};
  }
  // Looked up once per node for both passes.
  const std::vector<uint64_t> numel = value_numels(prepared);
  const Flags channels_last = channels_last_values(prepared, o);
  // Times are costed on kernels without row_reduction_readers_join, the
  // peak simulation's masks come from kernels with it (bandwidth_options.h
  // says why).
  const BandwidthOptions timed = costed_options(o);
  FusionGroups backward_groups =
      group_kernels(prepared, e.backward, r.classification.bwd_outputs, node_ops, numel, channels_last, timed,
                    e.recomputed);
  out.backward = cost_kernels(prepared, backward_groups, node_ops, numel, device, timed, detail);
  out.forward = cost_pass(prepared, e.forward, fw_outputs, node_ops, numel, channels_last, device, timed, {}, detail);
  if (o.row_reduction_readers_join && o.reductions_end_kernels) {
    FusionGroups forward_groups = group_kernels(prepared, e.forward, fw_outputs, node_ops, numel, channels_last, o, {});
    move_masks(forward_groups, out.forward);
    backward_groups =
        group_kernels(prepared, e.backward, r.classification.bwd_outputs, node_ops, numel, channels_last, o,
                      e.recomputed);
  }
  if (around.with_forward) around.with_forward(out.forward);
  if (around.with_backward_groups) around.with_backward_groups(backward_groups);
  move_masks(backward_groups, out.backward);
  return out;
}

}  // namespace

BandwidthEstimate estimate_bandwidth(const Graph& prepared, const PartitionResult& r, const OpClasses& ops,
                                     const Device& device, const BandwidthOptions& o, PassDetail detail) {
  return estimate_passes(prepared, r, *node_ops_of(prepared, r, ops), device, o, {}, detail);
}

PeakMemory fused_peak_memory(const Graph& prepared, const PartitionResult& r, const OpClasses& ops,
                             const BandwidthEstimate& bw, const BandwidthOptions& o, MemoryTimeline* timeline) {
  return simulate_peak_memory(prepared, r.classification, r.extraction, *node_ops_of(prepared, r, ops),
                              both_materialized(bw, o), timeline);
}

BandwidthAndPeak estimate_bandwidth_and_peak(const Graph& prepared, const PartitionResult& r, const OpClasses& ops,
                                             const Device& device, const BandwidthOptions& o, PassDetail detail,
                                             MemoryTimeline* timeline) {
  const auto shared_ops = node_ops_of(prepared, r, ops);
  const NodeOpClasses& node_ops = *shared_ops;
  ForwardPeak forward;
  BandwidthAndPeak out;
  AroundPasses around;
  around.with_forward = [&](const PassEstimate& f) {
    forward = simulate_forward_peak(prepared, r.classification, r.extraction, node_ops, forward_materialized(f, o),
                                    timeline);
  };
  around.with_backward_groups = [&](const FusionGroups& groups) {
    static const std::vector<int32_t> kAtEachNode;
    out.memory = simulate_backward_peak(prepared, r.classification, r.extraction, node_ops, materialized_rules(o),
                                        groups.stored, groups.realized,
                                        o.allocate_at_kernel_launch ? groups.kernel : kAtEachNode, forward, timeline);
  };
  out.bandwidth = estimate_passes(prepared, r, node_ops, device, o, around, detail);
  return out;
}

}  // namespace pt
