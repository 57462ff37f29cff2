#include "plan/exact_candidate.h"

#include <algorithm>
#include <chrono>

#include "graph/errors.h"
#include "graph/human_units.h"
#include "plan/recomputable_values.h"
#include "plan/peak_rows.h"
#include "plan/runnable_partition.h"

namespace pt {

namespace {

// A solve gets at least this long: GLPK's limit is in milliseconds, and a
// solve cut off before its first answer would end the ladder.
constexpr double kLeastSolveSeconds = 0.01;

// The row learned from a plan that does not fit, made a cut of that plan
// alone. Its baseline is what the plan's run holds beyond its terms, and a
// run that orders kernels differently (estimate/kernel_order.h) can hold
// there what the reference plan never does: uncapped, such a row held the
// reference plan above its own simulated peak and made every plan
// infeasible at a limit the reference plan fits. So, as for the model's own
// rows (linear_plan_model.cpp), the baseline comes down until the reference
// plan is at most its simulated peak there; what that takes off the plan
// goes to the terms of the choices where it differs from the reference
// plan, by their bytes, so that the row still holds the plan at its
// simulated peak.
void cut_plan_only(const LinearPlanModel& m, const LinearChoice& choice, uint64_t plan_peak, LinearStep& row) {
  const uint64_t reference = step_bytes(row, m.reference);
  if (reference <= m.reference_peak) return;
  row.baseline -= std::min(row.baseline, reference - m.reference_peak);
  const uint64_t plan = step_bytes(row, choice);
  if (plan >= plan_peak) return;
  std::vector<TermCause> causes;
  for (size_t v = 0; v < m.values.size(); ++v) {
    const bool saved = choice.saved[v] && !m.reference.saved[v];
    const bool recomputed = choice.recomputed[v] && !m.reference.recomputed[v];
    if ((saved || recomputed) && m.bytes[v] > 0) causes.push_back({static_cast<int32_t>(v), saved});
  }
  if (!causes.empty()) spread_over_terms(m, causes, plan_peak - plan, row);
}

}  // namespace

ExactCandidate exact_candidate(const Graph& prepared, const PartitionResult& lent, const Settings& s,
                               LinearPlanModel& m, uint64_t limit, const ExactSearch& search, const Device& device,
                               const BandwidthOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const Flags runnable = runnable_in_backward(recomputable_values(prepared, lent, s), lent);
  ExactCandidate out;
  out.plan.family = PlanFamily::Exact;
  for (int round = 0; round < kExactRounds; ++round) {
    const double left = search.seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (round > 0 && left < kLeastSolveSeconds) break;
    out.solution = solve_exact(m, limit, std::max(left, kLeastSolveSeconds), search.relative_gap);
    ++out.solves;
    out.plan.origin = "ILP at " + human_bytes(limit) + ", " + exact_status_name(out.solution.status);
    if (!out.solution.has_answer()) {
      out.plan.error = "exact plan: " + std::string(exact_status_name(out.solution.status));
      return out;
    }
    PlanCandidate c = out.plan;
    MemoryTimeline timeline;
    try {
      const PartitionResult r = partition_runnable(prepared, lent, runnable, out.solution.saved);
      c.saved = r.extraction.fw_saved_outputs();
      c.moves = static_cast<int>(r.extraction.recomputed.size());
      predict_plan(prepared, r, s, device, o, c, &timeline);
    } catch (const InfeasibleError& e) {
      c.error = "exact plan: " + std::string(e.what());
      out.plan = c;
      return out;
    }
    out.plan = c;
    if (c.peak_bytes <= limit) break;
    LinearStep row = simulated_row(prepared, m, timeline, timeline.peak_step, out.solution.choice);
    cut_plan_only(m, out.solution.choice, c.peak_bytes, row);
    m.steps.push_back(std::move(row));
    ++m.learned_rows;
    ++out.rows_learned;
  }
  return out;
}

}  // namespace pt
