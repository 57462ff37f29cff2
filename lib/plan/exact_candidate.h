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
  int solves = 0;          // ILP solves run
  int rows_learned = 0;    // rows added to the model (plan/peak_rows.h)
};

// How long the exact plan may search, in all (solves, extractions and
// simulations), and the relative gap at which each solve may stop
// (0: until GLPK proves the optimum).
struct ExactSearch {
  double seconds = 0;
  double relative_gap = 0;
};

// The ILP's plan for `limit`, by constraint generation: solve, extract the
// answer and predict it with the full model; while its simulated peak is
// over the limit, add the row learned from that simulation
// (plan/peak_rows.h) to `m` and solve again, within `search` and at most
// kExactRounds solves. The rows learned stay in `m`. The plan returned is
// the last one predicted: over the limit when the rounds or the time ran
// out first. A value the extraction would recompute but may not be
// recomputed (the model left it out) is saved instead. `lent` is a
// partition of `prepared` under `s`.
inline constexpr int kExactRounds = 16;
ExactCandidate exact_candidate(const Graph& prepared, const PartitionResult& lent, const Settings& s,
                               LinearPlanModel& m, uint64_t limit, const ExactSearch& search, const Device& device,
                               const BandwidthOptions& o);

}  // namespace pt
