// The plans PyTorch's own partitioner reaches with its knobs, each
// partitioned and predicted by the same model as every other candidate:
//   - the settings as given (the default plan);
//   - activation_memory_budget 0, 0.05, ..., 0.95 with each solver (dp,
//     greedy, and ilp on graphs of at most kIlpMaxNodes prepared nodes:
//     GLPK runs without a time limit, and on gpt2_124m (~2,600 nodes) one
//     budget's knapsack ran for minutes);
//   - aggressive_recomputation;
//   - each ban_recompute_* switch turned off on its own.
// None of them recomputes a random op: the partitioner bans that whatever
// the switches (partition/ban_heuristics.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "settings/settings.h"
#include "plan/plan_candidate.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

namespace pt {

inline constexpr int64_t kIlpMaxNodes = 500;

// The knob plans to try on `prepared`, unpartitioned; the first is the default.
std::vector<PlanCandidate> knob_candidates(const Graph& prepared);

// Partitions and predicts each, on `jobs` threads (ilp rows one at a time:
// GLPK keeps global state). A knob without a finite cut keeps its error.
// Fills each candidate's `saved` (the forward's saved outputs).
void evaluate_knob_candidates(const Graph& prepared, const Settings& base, const Device& device,
                              const BandwidthOptions& o, unsigned jobs, std::vector<PlanCandidate>& candidates);

}  // namespace pt
