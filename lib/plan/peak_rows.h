// The peak rows of the exact plan's model (plan/linear_plan_model.h): what
// a plan holds at one step of a run, as a baseline plus a term per decision
// value that is alive there when saved (or recomputed).
//
// A row's terms come from the model's live intervals (forward_row,
// backward_row); simulated_row then reads one step of a simulated plan
// (estimate/memory_timeline.h): it adds the decision values the simulation
// holds there that the intervals miss (or count with fewer bytes: a
// recomputed fusible value that the backward stores after all), and sets
// the baseline to what the simulation holds beyond the plan's own terms.
// For the simulated plan the row reads the simulated live bytes (or more,
// where the terms alone exceed them). Its left side does not depend on any
// limit.
//
// The model's own rows are the default plan's steps read this way; the
// exact plan adds, by constraint generation, the row at the simulated peak
// of each plan of its own that does not fit (plan/exact_candidate.h), so
// that no later solve at a limit below that peak chooses that plan again.
#pragma once

#include <cstddef>

#include "graph/graph.h"
#include "plan/linear_plan_model.h"
#include "estimate/memory_timeline.h"

namespace pt {

// The terms at a step, baseline 0: in the forward, at `node` (every value
// computed up to it, saved, is alive: the forward runs in graph order); in
// the backward, at `position` among the backward's own nodes
// (LinearPlanModel::position).
LinearStep forward_row(const LinearPlanModel& m, NodeId node);
LinearStep backward_row(const LinearPlanModel& m, int32_t position);

// Adds `extra` bytes to the row's terms of `causes` (each a value's saved
// term, or its recomputed one), split by the values' bytes, the last taking
// what rounding left; a missing term is added.
struct TermCause {
  int32_t value = 0;
  bool saved = false;
};
void spread_over_terms(const LinearPlanModel& m, const std::vector<TermCause>& causes, uint64_t extra,
                       LinearStep& row);

// The row at `step` of the simulated plan `t`, whose choice is `choice`.
// A backward step that runs no own node of the backward (a recomputation)
// takes the live intervals of the next own node: recomputations run just
// before their readers.
LinearStep simulated_row(const Graph& g, const LinearPlanModel& m, const MemoryTimeline& t, size_t step,
                         const LinearChoice& choice);

}  // namespace pt
