// The exact plan (plan/exact_plan.h) as a candidate of the memory-limit
// planner: the ILP's saved set, extracted and predicted by the full model
// like every other candidate (plan/plan_candidate.h).
#pragma once

#include <cstdint>
#include <optional>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "plan/exact_plan.h"
#include "plan/linear_plan_model.h"
#include "plan/plan_candidate.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

namespace pt {

// Graphs of more prepared nodes than this skip the exact plan: GLPK's
// branch and bound grows with the decision values (about half the nodes)
// times the peak rows, and on a 2,600-node gpt2_124m the ladder of solves
// already takes seconds (docs/design.md, "Memory-limit planner"). Larger
// graphs keep the knob plans and the per-value search.
inline constexpr NodeId kExactMaxNodes = 5000;

struct ExactCandidate {
  PlanCandidate plan;      // error set when the ILP gave no answer
  ExactSolution solution;  // the last solve's
};

// The ILP's plan for `limit`. The linear model's peak is not the full
// simulation's: when the full peak is over the limit, the ILP runs again
// with its limit scaled down by limit / peak, once more. A value the
// extraction would recompute but may not be recomputed (the model left it
// out) is saved instead. `lent` is a partition of `prepared` under `s`.
ExactCandidate exact_candidate(const Graph& prepared, const PartitionResult& lent, const Settings& s,
                               const LinearPlanModel& m, uint64_t limit, const Device& device,
                               const BandwidthOptions& o);

}  // namespace pt
