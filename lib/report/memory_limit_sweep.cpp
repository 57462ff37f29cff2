#include "report/memory_limit_sweep.h"

#include <map>
#include <optional>

#include "graph/errors.h"
#include "plan/memory_limit_plan.h"
#include "prepare/prepare.h"

namespace pt {

namespace {

SweepRow knob_point(const PlanCandidate& c) {
  SweepRow row;
  for (const auto& [k, v] : c.knob) {
    if (k == "activation_memory_budget") row.value += v;
    if (k == "activation_memory_budget_solver") row.value += " " + v;
  }
  if (row.value.empty()) row.value = "1";
  row.peak_bytes = c.peak_bytes;
  row.peak_at = c.peak_at;
  row.forward_seconds = c.forward_seconds;
  row.backward_seconds = c.backward_seconds;
  row.saved_count = static_cast<int64_t>(c.saved.size());
  return row;
}

}  // namespace

SweepResult run_memory_limit_sweep(const Graph& joint, const Settings& base, const std::vector<std::string>& values,
                                   const Device& device, const BandwidthOptions& o, unsigned jobs) {
  std::vector<MemoryLimit> limits;
  for (const auto& v : values) {
    Settings s = base;
    s.set("memory_limit", v);
    limits.push_back(s.memory_limit);
  }
  SweepResult out;
  out.graph = joint.header->name();
  out.key = "memory_limit";
  out.device = device.name;
  const PrepareResult prepared = prepare(joint, base);
  const Graph& g = prepared.graph;
  const PlanCandidates candidates = plan_candidates(g, base, device, o, jobs);
  for (const PlanCandidate& c : candidates.all) {
    if (c.error.empty() && (c.family == PlanFamily::BudgetKnob || c.family == PlanFamily::Default)) {
      out.knob_points.push_back(knob_point(c));
    }
  }
  // One partition per distinct plan (keyed by its description and saved set).
  std::map<std::pair<std::string, std::vector<NodeId>>, SweepRow> made;
  for (size_t i = 0; i < values.size(); ++i) {
    SweepRow row;
    try {
      const PlanCandidate& chosen =
          !limits[i].on() ? candidates.all.front() : choose_plan(candidates, limits[i]).chosen;
      const auto key = std::make_pair(chosen.description(), chosen.saved);
      auto it = made.find(key);
      if (it == made.end()) {
        const Settings s = plan_settings(base, chosen);
        it = made.emplace(key, sweep_row(g, partition_plan(g, base, chosen), s, device, o))
                 .first;
      }
      row = it->second;
      row.plan = chosen.description();
    } catch (const InfeasibleError& e) {
      row.error = e.what();
    }
    row.value = values[i];
    if (i > 0) {
      const SweepRow& prev = out.rows.back();
      row.cut_changed = prev.saved != row.saved || prev.error.empty() != row.error.empty();
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace pt
