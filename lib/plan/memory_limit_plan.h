// The memory_limit setting's planner: the plan with the least predicted
// step time whose simulated peak (the report's memory.peak_bytes) is at
// most the limit. It runs after the default partition, as a driver of the
// pipeline (like the sweep):
//   1. candidates, none of which depends on the limit: the plans of
//      PyTorch's own knobs (plan/knob_candidates.h), checkpoints on the
//      model's first blocks (plan/block_checkpoints.h), the per-value
//      search from a few of those (plan/value_search.h) and, on graphs of at most
//      kExactMaxNodes nodes, the exact plans (plan/exact_candidate.h) at a
//      ladder of limits fixed by the default plan's peak (kExactLadder),
//      each predicted by the model the report prints (plan/plan_candidate.h);
//   2. the choice: the fastest candidate that fits (ties: the lower peak,
//      then the earlier candidate);
//   3. the certificate (certify_plan): the ILP solved at the limit itself
//      tells whether the choice is optimal under the linear model.
// Because the candidate set is fixed before the limit is read, a higher
// limit never gives a slower plan, and the plan is never slower than the
// best knob plan that fits (those are candidates too). The ILP's plan at
// the limit itself is not a candidate, as it would break the first
// guarantee wherever the linear model and the full one disagree: it only
// certifies.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "plan/linear_plan_model.h"
#include "plan/plan_candidate.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

namespace pt {

// The exact plans' limits, as fractions of the default plan's peak: 5%
// apart, as the budget grid is, down to where the inputs, gradients and
// the backward's own values alone make most of the peak on the corpus.
inline constexpr double kExactLadder[] = {0.3,  0.35, 0.4,  0.45, 0.5,  0.55, 0.6, 0.65,
                                          0.7,  0.75, 0.8,  0.85, 0.9,  0.95, 1.0};

// The exact plans' solves stop within this relative gap of the linear
// model's optimum: proving it took gpt2_124m's solves past 3 s each below
// 95% of the default peak, where the 1% stop takes 0.1-0.4 s. The
// certificate at the limit (certify_plan) searches for the proof.
inline constexpr double kExactLadderGap = 0.01;

struct PlanCandidates {
  // The knob plans (the default first), then the block plans, then the
  // per-value search's, then the exact plans.
  std::vector<PlanCandidate> all;
  size_t knob_count = 0;
  size_t block_count = 0;
  size_t exact_count = 0;
  // The linear model the exact plans were solved on; null where none ran
  // (exact_skipped says why).
  std::shared_ptr<const LinearPlanModel> linear;
  std::string exact_skipped;
  double exact_seconds = 0;        // of `seconds`: building the model and the exact plans
  size_t lowest_peak = 0;          // index of the candidate with the smallest peak
  std::string lowest_peak_live;    // what is alive at that peak (plan/live_at_plan_peak.h's live_at_peak_text)
  double seconds = 0;              // time to build and predict them all
};

// `jobs`: threads (0: every hardware thread); the candidates do not depend on it.
PlanCandidates plan_candidates(const Graph& prepared, const Settings& base, const Device& device,
                               const BandwidthOptions& o, unsigned jobs = 0);

struct MemoryPlan {
  uint64_t limit = 0;           // in bytes, resolved
  double limit_fraction = 0;    // the setting's fraction of default_peak ("60%"); 0: given in bytes
  uint64_t default_peak = 0;    // the peak of the plan the other settings give
  PlanCandidate chosen;
  std::optional<PlanCandidate> best_knob;  // the fastest fitting plan PyTorch's knobs reach
  std::optional<PlanCandidate> rejected;   // the next-best plan not taken
  std::string rejected_why;
  bool proven_optimal = false;             // under the linear model (certify_plan)
  std::string optimality;                  // what the choice is known to be, and how
  // Under the linear time model: the chosen plan's cost, and the least cost
  // GLPK proved at the limit (absent when no exact solve ran or none was
  // proved). Their ratio bounds how far the choice can be from that optimum.
  std::optional<double> linear_seconds, linear_optimum_seconds;
  size_t candidate_count = 0, knob_count = 0, block_count = 0, exact_count = 0;
  double search_seconds = 0;
};

// The fastest fitting candidate. A fraction is of the default plan's peak
// (candidates.all.front()). Throws InfeasibleError, one line, when none
// fits: the smallest peak reached, the node running at it and the largest
// saved values alive there.
MemoryPlan choose_plan(const PlanCandidates& candidates, const MemoryLimit& limit);

// "1.43 GB", or "1.43 GB, 60% of the default plan's 2.38 GB peak": the
// limit as reports and errors name it.
std::string limit_text(uint64_t limit, double fraction, uint64_t default_peak);

// Solves the ILP at plan.limit to the proof (learning rows from the
// simulations of its answers, as exact_candidate does, on a copy of the
// model) and says in plan.proven_optimal and plan.optimality whether the
// chosen plan is optimal under the linear model: only when GLPK proves that
// no choice within the model's rows costs less, the simulation of that
// optimum fits the limit, the chosen plan costs no more under the linear
// time, and the full model does not predict the optimum's plan faster than
// the chosen one. Otherwise the text says what is known (the linear gap,
// the time limit, the optimum over the limit). `prepared`, `base`,
// `device` and `o` as plan_candidates was given.
void certify_plan(MemoryPlan& plan, const PlanCandidates& candidates, const Graph& prepared, const Settings& base,
                  const Device& device, const BandwidthOptions& o);

// The chosen plan's partition of `prepared`, as the report and the written
// partition need it, and the settings it was partitioned under.
Settings plan_settings(const Settings& base, const PlanCandidate& c);
PartitionResult partition_plan(const Graph& prepared, const Settings& base, const PlanCandidate& c);

}  // namespace pt
