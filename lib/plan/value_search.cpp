#include "plan/value_search.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "graph/errors.h"
#include "plan/parallel_for.h"
#include "plan/recomputable_values.h"
#include "plan/runnable_partition.h"
#include "plan/live_at_plan_peak.h"

namespace pt {

namespace {

// `saved` without `drop`, recomputing each from its inputs back to values
// saved already or that may not be recomputed (added to the saved set).
std::vector<NodeId> recompute(const Graph& g, const std::vector<NodeId>& saved, const std::vector<NodeId>& drop,
                              const Flags& recomputable) {
  Flags is_saved(g.size(), false), visited(g.size(), false);
  for (NodeId id : saved) is_saved[id] = true;
  for (NodeId id : drop) is_saved[id] = false;
  std::vector<NodeId> out, work(drop.begin(), drop.end());
  for (NodeId id : drop) visited[id] = true;
  while (!work.empty()) {
    const NodeId v = work.back();
    work.pop_back();
    for (NodeId in : g[v].inputs) {
      if (visited[in] || is_saved[in]) continue;
      visited[in] = true;
      if (recomputable[in]) work.push_back(in);
      else is_saved[in] = true;
    }
  }
  for (NodeId id = 0; id < g.size(); ++id) {
    if (is_saved[id]) out.push_back(id);
  }
  return out;
}

struct Move {
  PlanCandidate plan;
  std::optional<PartitionResult> result;
};

}  // namespace

std::vector<PlanCandidate> search_values(const Graph& prepared, const PartitionResult& base, const Settings& s,
                                         const PlanCandidate& start, const Device& device, const BandwidthOptions& o,
                                         unsigned jobs, const ValueSearchOptions& options) {
  std::vector<PlanCandidate> tried;
  if (!start.error.empty()) return tried;
  const Flags recomputable = recomputable_values(prepared, base, s);
  const Flags runnable = runnable_in_backward(recomputable, base);
  PlanCandidate current = start;
  PartitionResult current_result = partition_with_saved(prepared, base, start.saved);
  int recomputed_values = 0;
  for (int step = 0; step < options.max_steps; ++step) {
    std::vector<NodeId> live;
    for (NodeId v : saved_live_at_peak(prepared, current_result, s, device, o)) {
      if (recomputable[v]) live.push_back(v);
    }
    // Batches of the largest 1, 2, 4, ... live values, and all of them.
    std::vector<size_t> batches;
    for (size_t n = 1; n < live.size(); n *= 2) batches.push_back(n);
    if (!live.empty()) batches.push_back(live.size());
    if (batches.empty()) break;
    std::vector<Move> moves(batches.size());
    parallel_for(batches.size(), jobs, [&](size_t i) {
      const std::vector<NodeId> drop(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(batches[i]));
      try {
        // What the backward may not run, and tuples (the bridge saves
        // tensors and symbols), are saved instead.
        PartitionResult r =
            partition_runnable(prepared, base, runnable, recompute(prepared, current.saved, drop, recomputable));
        std::vector<NodeId> saved = r.extraction.fw_saved_outputs();
        Move& m = moves[i];
        m.plan.family = PlanFamily::PerValueSearch;
        m.plan.origin = start.description();
        m.plan.moves = recomputed_values + static_cast<int>(batches[i]);
        m.plan.saved = std::move(saved);
        predict_plan(prepared, r, s, device, o, m.plan);
        m.result = std::move(r);
      } catch (const InfeasibleError&) {
        // no backward from this saved set: not a move
      }
    });
    // The move that lowers the peak at the least added time per byte.
    Move* best = nullptr;
    double best_rate = std::numeric_limits<double>::infinity();
    for (Move& m : moves) {
      if (!m.result) continue;
      tried.push_back(m.plan);
      if (m.plan.peak_bytes >= current.peak_bytes) continue;
      const double rate = (m.plan.step_seconds - current.step_seconds) /
                          static_cast<double>(current.peak_bytes - m.plan.peak_bytes);
      if (rate < best_rate) {
        best_rate = rate;
        best = &m;
      }
    }
    if (!best) break;
    recomputed_values = best->plan.moves;
    current = best->plan;
    current_result = std::move(*best->result);
  }
  return tried;
}

}  // namespace pt
