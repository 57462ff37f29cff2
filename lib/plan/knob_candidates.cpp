#include "plan/knob_candidates.h"

#include <cstdio>
#include <string>

#include "graph/errors.h"
#include "plan/parallel_for.h"

namespace pt {

namespace {

PlanCandidate knob(PlanFamily family, std::vector<std::pair<std::string, std::string>> assignments) {
  PlanCandidate c;
  c.family = family;
  c.knob = std::move(assignments);
  return c;
}

bool uses_ilp(const PlanCandidate& c) {
  for (const auto& [k, v] : c.knob) {
    if (k == "activation_memory_budget_solver" && v == "ilp") return true;
  }
  return false;
}

void evaluate(const Graph& prepared, const Settings& base, const Device& device, const BandwidthOptions& o,
              PlanCandidate& c) {
  const Settings s = knob_settings(base, c);
  try {
    const PartitionResult r = partition_graph(prepared, s);
    c.saved = r.extraction.fw_saved_outputs();
    predict_plan(prepared, r, s, device, o, c);
  } catch (const InfeasibleError& e) {
    c.error = e.what();
  }
}

}  // namespace

std::vector<PlanCandidate> knob_candidates(const Graph& prepared) {
  std::vector<PlanCandidate> out;
  out.push_back(knob(PlanFamily::Default, {}));
  std::vector<std::string> solvers = {"dp", "greedy"};
  if (prepared.size() <= kIlpMaxNodes) solvers.push_back("ilp");
  for (const auto& solver : solvers) {
    for (int step = 0; step < 20; ++step) {
      char budget[16];
      std::snprintf(budget, sizeof budget, "%g", step * 0.05);
      out.push_back(knob(PlanFamily::BudgetKnob,
                         {{"activation_memory_budget", budget}, {"activation_memory_budget_solver", solver}}));
    }
  }
  out.push_back(knob(PlanFamily::Aggressive, {{"aggressive_recomputation", "true"}}));
  for (const char* key : {"ban_recompute_used_far_apart", "ban_recompute_long_fusible_chains",
                          "ban_recompute_materialized_backward", "ban_recompute_not_in_allowlist",
                          "ban_recompute_reductions"}) {
    out.push_back(knob(PlanFamily::BanSwitch, {{key, "false"}}));
  }
  return out;
}

void evaluate_knob_candidates(const Graph& prepared, const Settings& base, const Device& device,
                              const BandwidthOptions& o, unsigned jobs, std::vector<PlanCandidate>& candidates) {
  std::vector<size_t> parallel, serial;
  for (size_t i = 0; i < candidates.size(); ++i) (uses_ilp(candidates[i]) ? serial : parallel).push_back(i);
  parallel_for(parallel.size(), jobs, [&](size_t k) { evaluate(prepared, base, device, o, candidates[parallel[k]]); });
  for (size_t i : serial) evaluate(prepared, base, device, o, candidates[i]);
}

}  // namespace pt
