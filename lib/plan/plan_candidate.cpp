#include "plan/plan_candidate.h"

#include "estimate/bandwidth_model.h"

namespace pt {

const char* family_name(PlanFamily f) {
  switch (f) {
    case PlanFamily::Default: return "default";
    case PlanFamily::BudgetKnob: return "activation_memory_budget";
    case PlanFamily::Aggressive: return "aggressive_recomputation";
    case PlanFamily::BanSwitch: return "ban switch";
    case PlanFamily::PerValueSearch: return "per-value search";
    case PlanFamily::Exact: return "exact (ILP)";
    case PlanFamily::BlockCheckpoint: return "block checkpoints";
  }
  return "default";
}

std::string PlanCandidate::description() const {
  if (family == PlanFamily::PerValueSearch) {
    return "per-value search from " + origin + ", " + std::to_string(moves) + " value" + (moves == 1 ? "" : "s") +
           " recomputed";
  }
  if (family == PlanFamily::Exact) {
    return origin + ", " + std::to_string(moves) + " value" + (moves == 1 ? "" : "s") + " recomputed";
  }
  if (family == PlanFamily::BlockCheckpoint) return origin;
  if (knob.empty()) return "default";
  std::string out;
  for (const auto& [k, v] : knob) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out;
}

Settings knob_settings(const Settings& base, const PlanCandidate& c) {
  Settings s = base;
  for (const auto& [k, v] : c.knob) s.set(k, v);
  return s;
}

void predict_plan(const Graph& prepared, const PartitionResult& r, const Settings& s, const Device& device,
                  const BandwidthOptions& o, PlanCandidate& c, MemoryTimeline* timeline) {
  // As the sweep's rows: totals only, then the fusion-aware peak from the
  // estimate's stored masks (estimate/bandwidth_model.h).
  const BandwidthEstimate bw = estimate_bandwidth(prepared, r, s.op_classes, device, o, PassDetail::Totals);
  c.forward_seconds = bw.forward.seconds;
  c.backward_seconds = bw.backward.seconds;
  c.step_seconds = bw.forward.seconds + bw.backward.seconds;
  const PeakMemory peak = fused_peak_memory(prepared, r, s.op_classes, bw, o, timeline);
  c.peak_bytes = peak.peak_bytes;
  c.peak_at = peak.peak_at;
  c.peak_pass = peak.peak_pass;
}

PartitionResult partition_with_saved(const Graph& prepared, const PartitionResult& base,
                                     const std::vector<NodeId>& saved) {
  PartitionResult r;
  r.classification = base.classification;
  r.node_ops = base.node_ops;
  r.chosen = saved;
  r.saved_set_given = true;
  r.extraction = extract_partition(prepared, r.classification, saved);
  return r;
}

}  // namespace pt
