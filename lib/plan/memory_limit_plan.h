// The memory_limit setting's planner: the plan with the least predicted
// step time whose simulated peak (the report's memory.peak_bytes) is at
// most the limit. It runs after the default partition, as a driver of the
// pipeline (like the sweep):
//   1. candidates, none of which depends on the limit: the plans of
//      PyTorch's own knobs (plan/knob_candidates.h) and the per-value
//      search from a few of them (plan/value_search.h), each predicted by
//      the model the report prints (plan/plan_candidate.h);
//   2. the choice: the fastest candidate that fits (ties: the lower peak,
//      then the earlier candidate).
// Because the candidate set is fixed before the limit is read, a higher
// limit never gives a slower plan, and the plan is never slower than the
// best knob plan that fits (those are candidates too).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "plan/plan_candidate.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

namespace pt {

struct PlanCandidates {
  std::vector<PlanCandidate> all;  // the knob plans (the default first), then the per-value search's
  size_t knob_count = 0;
  size_t lowest_peak = 0;          // index of the candidate with the smallest peak
  std::string lowest_peak_live;    // "h_3 (12.6 MB), ..." the largest saved values alive at that peak
  double seconds = 0;              // time to build and predict them all
};

// `jobs`: threads (0: every hardware thread); the candidates do not depend on it.
PlanCandidates plan_candidates(const Graph& prepared, const Settings& base, const Device& device,
                               const BandwidthOptions& o, unsigned jobs = 0);

struct MemoryPlan {
  uint64_t limit = 0;
  PlanCandidate chosen;
  std::optional<PlanCandidate> best_knob;  // the fastest fitting plan PyTorch's knobs reach
  std::optional<PlanCandidate> rejected;   // the next-best plan not taken
  std::string rejected_why;
  bool proven_optimal = false;             // under the model; no exact solver runs yet
  std::string optimality;                  // what the choice is known to be
  size_t candidate_count = 0, knob_count = 0;
  double search_seconds = 0;
};

// The fastest fitting candidate. Throws InfeasibleError, one line, when none
// fits: the smallest peak reached, the node running at it and the largest
// saved values alive there.
MemoryPlan choose_plan(const PlanCandidates& candidates, uint64_t limit);

// The chosen plan's partition of `prepared`, as the report and the written
// partition need it, and the settings it was partitioned under.
Settings plan_settings(const Settings& base, const PlanCandidate& c);
PartitionResult partition_plan(const Graph& prepared, const Settings& base, const PlanCandidate& c);

}  // namespace pt
