#include "plan/value_search.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "graph/errors.h"
#include "partition/ban_heuristics.h"
#include "partition/ban_options.h"
#include "plan/parallel_for.h"
#include "plan/saved_live_at_peak.h"

namespace pt {

namespace {

// Ops PyTorch may recompute with every ban switch off.
Flags recomputable_ops(const Graph& g, const PartitionResult& base, const Settings& s) {
  BanOptions none;
  none.used_far_apart = none.long_fusible_chains = none.materialized_backward = none.not_in_allowlist =
      none.reductions = false;
  Flags ok(g.size(), false);
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].op != OpKind::CallFunction || !base.classification.required_fw[id]) continue;
    ok[id] = should_ban_recomputation(g, base.classification, id, s, none, *base.node_ops) == BanReason::None;
  }
  return ok;
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
  const Flags recomputable = recomputable_ops(prepared, base, s);
  PlanCandidate current = start;
  PartitionResult current_result = partition_with_saved(prepared, base, start.saved);
  for (int step = 0; step < options.max_steps; ++step) {
    std::vector<NodeId> targets;
    for (NodeId v : saved_live_at_peak(prepared, current_result.extraction, current.peak_at, current.peak_pass,
                                       o.backward_order_from_tangents)) {
      if (recomputable[v]) targets.push_back(v);
      if (static_cast<int>(targets.size()) == options.moves_per_step) break;
    }
    if (targets.empty()) break;
    std::vector<Move> moves(targets.size());
    parallel_for(targets.size(), jobs, [&](size_t i) {
      std::vector<NodeId> saved;
      for (NodeId id : current.saved) {
        if (id != targets[i]) saved.push_back(id);
      }
      for (NodeId in : prepared[targets[i]].inputs) saved.push_back(in);
      std::sort(saved.begin(), saved.end());
      saved.erase(std::unique(saved.begin(), saved.end()), saved.end());
      try {
        PartitionResult r = partition_with_saved(prepared, base, saved);
        for (NodeId id : r.extraction.recomputed) {
          if (!recomputable[id]) return;  // would recompute what PyTorch never does
        }
        Move& m = moves[i];
        m.plan.family = PlanFamily::PerValueSearch;
        m.plan.origin = start.description();
        m.plan.moves = step + 1;
        m.plan.saved = r.extraction.fw_saved_outputs();
        predict_plan(prepared, r, s, device, o, 1, m.plan);
        m.result = std::move(r);
      } catch (const InfeasibleError&) {
        // no backward from this saved set: not a move
      }
    });
    // The move that lowers the peak at the least added time per byte saved.
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
    current = best->plan;
    current_result = std::move(*best->result);
  }
  return tried;
}

}  // namespace pt
