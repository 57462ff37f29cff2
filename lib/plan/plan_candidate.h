// One plan the memory-limit planner may choose, with what the model
// predicts for it: the report's step time (the bandwidth model's forward
// plus backward seconds) and the report's peak (memory.peak_bytes, the
// fusion-aware simulation). Both are computed exactly as the report and the
// sweep compute them, so the plan section, the report and a sweep row of
// the same plan print the same numbers.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"
#include "estimate/memory_timeline.h"

namespace pt {

enum class PlanFamily {
  Default,           // the settings as given
  BudgetKnob,        // activation_memory_budget with one of its solvers
  Aggressive,        // aggressive_recomputation
  BanSwitch,         // one ban_recompute_* switch turned off
  PerValueSearch,    // saved set edited value by value (plan/value_search.h)
  Exact,             // the ILP of the linear model at one limit (plan/exact_candidate.h)
  BlockCheckpoint,   // the first blocks recomputed from their inputs (plan/block_checkpoints.h)
};

// "activation_memory_budget", "per-value search", ... (report text and JSON).
const char* family_name(PlanFamily f);
// PyTorch's partitioner reaches the plan with its own settings.
inline bool is_pytorch_knob(PlanFamily f) {
  return f != PlanFamily::PerValueSearch && f != PlanFamily::Exact && f != PlanFamily::BlockCheckpoint;
}

struct PlanCandidate {
  PlanFamily family = PlanFamily::Default;
  // Settings set on top of the user's to reproduce it (knob families), in order.
  std::vector<std::pair<std::string, std::string>> knob;
  // Per-value search, exact and block plans: the saved set (values and
  // symbols, before extraction); the search's count of values recomputed
  // beyond the plan it started from, the exact plan's count of values
  // recomputed (a block plan's origin is its whole description).
  std::vector<NodeId> saved;
  std::string origin;  // the knob plan the search started from; the ILP's limit and status
  int moves = 0;

  std::string error;  // the partitioner found no finite cut (then nothing below is set)
  uint64_t peak_bytes = 0;
  std::string peak_at;
  std::string peak_pass;
  double forward_seconds = 0, backward_seconds = 0;
  double step_seconds = 0;  // their sum: the report's predicted step time

  bool fits(uint64_t limit) const { return error.empty() && peak_bytes <= limit; }
  // "activation_memory_budget=0.35, activation_memory_budget_solver=greedy",
  // "per-value search from default, 4 values recomputed", or "default".
  std::string description() const;
};

// The user's settings with the candidate's knob applied (memory_limit kept).
Settings knob_settings(const Settings& base, const PlanCandidate& c);

// Fills c's prediction (peak and step time) for the partition r of the
// prepared graph, as the report does; `timeline`, when given, receives the
// peak simulation's memory over time (estimate/memory_timeline.h).
void predict_plan(const Graph& prepared, const PartitionResult& r, const Settings& s, const Device& device,
                  const BandwidthOptions& o, PlanCandidate& c, MemoryTimeline* timeline = nullptr);

// A partition whose saved set is `saved` rather than a min cut's: base's
// classification and op lookups, a fresh extraction, no flow network.
// Throws InfeasibleError when a gradient cannot be computed from it.
PartitionResult partition_with_saved(const Graph& prepared, const PartitionResult& base,
                                     const std::vector<NodeId>& saved);

}  // namespace pt
