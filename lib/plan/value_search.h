// Beyond the knobs: decide value by value what to recompute. From a plan,
// repeatedly take the saved values alive at its simulated peak
// (plan/saved_live_at_peak.h), largest first, and try recomputing each one
// instead of saving it (save its inputs instead); predict every such move
// with the full model and keep the one that lowers the peak at the least
// predicted time per byte, until no move lowers it. Every move tried
// becomes a candidate: the set does not depend on any limit, so the planner
// that picks from it stays monotone.
//
// A move is refused when the backward it gives would recompute an op that
// PyTorch bans even with every ban switch off (random ops, compute-intensive
// ops, ops marked must-save, ops too far from the backward): the maths of
// training never change.
//
// It is a descent, not a proof: the plans it finds are not shown optimal.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "partition/settings.h"
#include "plan/plan_candidate.h"
#include "report/bandwidth_options.h"
#include "report/device.h"

namespace pt {

struct ValueSearchOptions {
  int max_steps = 12;       // moves kept, one after the other
  int moves_per_step = 6;   // largest live saved values tried at each step
};

// `start` carries its saved set and prediction (a knob candidate);
// `base` is a partition of `prepared` under `s` (its classification and op
// lookups are reused). Returns the moves tried, in order.
std::vector<PlanCandidate> search_values(const Graph& prepared, const PartitionResult& base, const Settings& s,
                                         const PlanCandidate& start, const Device& device, const BandwidthOptions& o,
                                         unsigned jobs, const ValueSearchOptions& options = {});

}  // namespace pt
