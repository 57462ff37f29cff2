#include "plan/exact_candidate.h"

#include <algorithm>

#include "graph/errors.h"
#include "graph/human_units.h"
#include "plan/recomputable_values.h"

namespace pt {

namespace {

constexpr int kTries = 2;

// `saved` with each tuple replaced by its getitems, sorted and unique: a
// tuple cannot be saved whole (the forward outputs its items).
void items_not_tuples(const Graph& g, std::vector<NodeId>& saved) {
  std::vector<NodeId> items;
  std::erase_if(saved, [&](NodeId id) {
    if (g[id].value_kind != ValueKind::Tuple) return false;
    for (NodeId u : g.users[id]) {
      if (g[u].packet == "operator.getitem") items.push_back(u);
    }
    return true;
  });
  saved.insert(saved.end(), items.begin(), items.end());
  std::sort(saved.begin(), saved.end());
  saved.erase(std::unique(saved.begin(), saved.end()), saved.end());
}

// The ILP's saved set, extracted; values the extraction runs in the
// backward but may not (plan/recomputable_values.h's runnable_in_backward)
// join the saved set until none is left.
PartitionResult extract_answer(const Graph& g, const PartitionResult& lent, const Flags& runnable,
                               std::vector<NodeId> saved) {
  items_not_tuples(g, saved);
  for (;;) {
    PartitionResult r = partition_with_saved(g, lent, saved);
    std::vector<NodeId> banned;
    for (NodeId id : r.extraction.recomputed) {
      if (!runnable[id]) banned.push_back(id);
    }
    if (banned.empty()) return r;
    const size_t before = saved.size();
    saved.insert(saved.end(), banned.begin(), banned.end());
    items_not_tuples(g, saved);
    if (saved.size() == before) {
      throw InfeasibleError("exact plan: the extraction recomputes a value that may not be recomputed");
    }
  }
}

}  // namespace

ExactCandidate exact_candidate(const Graph& prepared, const PartitionResult& lent, const Settings& s,
                               const LinearPlanModel& m, uint64_t limit, const Device& device,
                               const BandwidthOptions& o) {
  const Flags runnable = runnable_in_backward(recomputable_values(prepared, lent, s), lent);
  ExactCandidate out;
  out.plan.family = PlanFamily::Exact;
  uint64_t target = limit;
  for (int attempt = 0; attempt < kTries; ++attempt) {
    out.solution = solve_exact(m, target, s.memory_limit_ilp_time_limit);
    out.plan.origin = "ILP at " + human_bytes(limit) + ", " + exact_status_name(out.solution.status);
    if (!out.solution.has_answer()) {
      out.plan.error = "exact plan: " + std::string(exact_status_name(out.solution.status));
      return out;
    }
    PlanCandidate c = out.plan;
    try {
      const PartitionResult r = extract_answer(prepared, lent, runnable, out.solution.saved);
      c.saved = r.extraction.fw_saved_outputs();
      c.moves = static_cast<int>(r.extraction.recomputed.size());
      predict_plan(prepared, r, s, device, o, c);
    } catch (const InfeasibleError& e) {
      c.error = e.what();
      out.plan = c;
      return out;
    }
    out.plan = c;
    if (c.peak_bytes <= limit) break;
    target = static_cast<uint64_t>(static_cast<double>(target) * static_cast<double>(limit) /
                                   static_cast<double>(c.peak_bytes));
  }
  return out;
}

}  // namespace pt
