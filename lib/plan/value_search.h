// Beyond the knobs: decide value by value what to recompute. From a plan,
// repeatedly take the saved values alive at its simulated peak
// (plan/live_at_plan_peak.h), largest first, and try recomputing the
// largest 1, 2, 4, ... of them instead of saving them. Recomputing a value
// recomputes its inputs too, back to values that are saved already or may
// not be recomputed (those are saved instead). Each move is predicted with
// the full model; the one that lowers the peak at the least added predicted
// time per byte is kept, until no move lowers it. Every move tried becomes
// a candidate: the set does not depend on any limit, so the planner that
// picks from it stays monotone.
//
// Never recomputed: what plan/recomputable_values.h rules out.
//
// It is a descent, not a proof: the plans it finds are not shown optimal.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "plan/plan_candidate.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

namespace pt {

struct ValueSearchOptions {
  int max_steps = 64;       // moves kept, one after the other
};

// `start` carries its saved set and prediction (a knob candidate);
// `base` is a partition of `prepared` under `s` (its classification and op
// lookups are reused). Returns the moves tried, in order.
std::vector<PlanCandidate> search_values(const Graph& prepared, const PartitionResult& base, const Settings& s,
                                         const PlanCandidate& start, const Device& device, const BandwidthOptions& o,
                                         unsigned jobs, const ValueSearchOptions& options = {});

}  // namespace pt
