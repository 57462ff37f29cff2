#include "report/bandwidth_model.h"

#include <functional>
#include <latch>
#include <memory>
#include <utility>

#include "graph/side_by_side.h"
#include "report/pass_cost.h"
#include "report/value_numel.h"

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

// Counts a latch down when it goes out of scope, thrown through or not.
struct CountDownOnExit {
  std::latch& latch;
  ~CountDownOnExit() { latch.count_down(); }
};

// What runs beside the two passes' costing (estimate_bandwidth_and_peak's
// use; each may be empty):
//   with_forward(forward): where the forward was costed (its thread), at once;
//   then_beside(): there too, afterwards, while with_both runs;
//   with_both(estimate): where the backward was costed, once it and
//     with_forward are done (skipped where the forward threw: that
//     exception is rethrown when both are done); it may borrow the
//     estimate's arrays if it gives them back.
struct AroundPasses {
  std::function<void(const PassEstimate&)> with_forward;
  std::function<void()> then_beside;
  std::function<void(BandwidthEstimate&)> with_both;
};

// estimate_bandwidth's work.
BandwidthEstimate estimate_passes(const Graph& prepared, const PartitionResult& r, const NodeOpClasses& node_ops,
                                  const Device& device, const BandwidthOptions& o, unsigned threads,
                                  const AroundPasses& around) {
  const Extraction& e = r.extraction;
  std::vector<NodeId> fw_outputs = r.classification.fwd_outputs;
  const auto saved = e.fw_saved_outputs();
  fw_outputs.insert(fw_outputs.end(), saved.begin(), saved.end());
  BandwidthEstimate out;
  out.device = device;
  if (!o.apply_device_efficiency) {  // as costed
    out.device.memory_efficiency = out.device.matmul_efficiency = 1;
    out.device.attention = {};
  }
  // Looked up once per node for both passes.
  const std::vector<uint64_t> numel = value_numels(prepared);
  // The two passes read the graph and share nothing they write: the forward
  // is costed on a second thread while this one costs the backward (about
  // two thirds of the work) from kParallelNodes nodes on (10^6 nodes:
  // report stage 2.9 -> 2.2 s on two cores). Session 24 split it from 2,000
  // nodes (gpt2_124m 9.68 -> 9.38 ms then); session 26 measured small graphs
  // slower split on the same kind of VM (side_by_side.h has the figures).
  // The estimate is the same either way; --threads 1 keeps it on one thread,
  // --threads 2 splits any graph.
  // with_both waits for the forward's part only, not for then_beside: at
  // 10^6 nodes the report's facts (0.2 s) then overlap the backward's peak
  // memory (0.15 s) instead of preceding it. Without a second thread the
  // forward runs first (run_side_by_side), so the wait returns at once.
  std::latch forward_ready(1);
  bool forward_done = false;
  auto forward = [&] {
    {
      const CountDownOnExit ready{forward_ready};
      out.forward = cost_pass(prepared, e.forward, fw_outputs, node_ops, numel, device, o, {});
      if (around.with_forward) around.with_forward(out.forward);
      forward_done = true;
    }
    if (around.then_beside) around.then_beside();
  };
  auto backward = [&] {
    out.backward =
        cost_pass(prepared, e.backward, r.classification.bwd_outputs, node_ops, numel, device, o, e.recomputed);
    if (!around.with_both) return;
    forward_ready.wait();
    if (forward_done) around.with_both(out);
  };
  run_side_by_side(split_in_two(threads, prepared.size()), forward, backward);
  return out;
}

}  // namespace

BandwidthEstimate estimate_bandwidth(const Graph& prepared, const PartitionResult& r, const OpClasses& ops,
                                     const Device& device, const BandwidthOptions& o, unsigned threads) {
  return estimate_passes(prepared, r, *node_ops_of(prepared, r, ops), device, o, threads, {});
}

PeakMemory fused_peak_memory(const Graph& prepared, const PartitionResult& r, const OpClasses& ops,
                             const BandwidthEstimate& bw, const BandwidthOptions& o) {
  return simulate_peak_memory(prepared, r.classification, r.extraction, *node_ops_of(prepared, r, ops),
                              both_materialized(bw, o));
}

// The backward's masks, borrowed from its estimate for the backward half of
// the peak simulation (which reads no forward field) and given back after:
// copies of them and of the forward's were 8 bytes a node at the moment
// that sets the report's peak memory (10^6 nodes: 7 MB).
class BorrowedBackward {
 public:
  BorrowedBackward(PassEstimate& backward, const BandwidthOptions& o)
      : backward_(backward), m_(materialized_rules(o)), kernel_borrowed_(o.allocate_at_kernel_launch) {
    m_.backward = std::move(backward.stored);
    m_.backward_realized = std::move(backward.realized);
    if (kernel_borrowed_) m_.backward_kernel = std::move(backward.kernel);
  }
  ~BorrowedBackward() {
    backward_.stored = std::move(m_.backward);
    backward_.realized = std::move(m_.backward_realized);
    if (kernel_borrowed_) backward_.kernel = std::move(m_.backward_kernel);
  }
  BorrowedBackward(const BorrowedBackward&) = delete;
  BorrowedBackward& operator=(const BorrowedBackward&) = delete;
  const Materialized& materialized() const { return m_; }

 private:
  PassEstimate& backward_;
  Materialized m_;
  bool kernel_borrowed_;
};

BandwidthAndPeak estimate_bandwidth_and_peak(const Graph& prepared, const PartitionResult& r, const OpClasses& ops,
                                             const Device& device, const BandwidthOptions& o, unsigned threads,
                                             const std::function<void()>& beside) {
  const auto shared_ops = node_ops_of(prepared, r, ops);
  const NodeOpClasses& node_ops = *shared_ops;
  ForwardPeak forward;
  BandwidthAndPeak out;
  AroundPasses around;
  around.with_forward = [&](const PassEstimate& f) {
    forward = simulate_forward_peak(prepared, r.classification, r.extraction, node_ops, forward_materialized(f, o));
  };
  around.then_beside = beside;
  around.with_both = [&](BandwidthEstimate& both) {
    const BorrowedBackward borrowed(both.backward, o);
    out.memory =
        simulate_backward_peak(prepared, r.classification, r.extraction, node_ops, borrowed.materialized(), forward);
  };
  out.bandwidth = estimate_passes(prepared, r, node_ops, device, o, threads, around);
  return out;
}

}  // namespace pt
