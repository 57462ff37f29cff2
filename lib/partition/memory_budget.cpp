#include "partition/memory_budget.h"

#include <algorithm>
#include <set>

#include "partition/knapsack.h"
#include "analysis/runtime_estimate.h"
#include "graph/errors.h"
#include "partition/ban_heuristics.h"
#include "graph/printable.h"

namespace pt {

namespace {

double size_gb(const Graph& g, const std::vector<NodeId>& ids) {
  double total = 0;
  for (NodeId id : ids) total += static_cast<double>(g[id].size_bytes);  // symbols count 1 byte
  return total / 1e9;
}

// Storage identity for "shares an input's storage": the exporter's storage id
// when present; else a view shares its base's storage and every other tensor
// has its own. Non-tensors have none (-1), which equals another non-tensor's.
std::vector<int64_t> storages(const Graph& g, const OpClasses& ops) {
  std::vector<int64_t> out(g.size(), -1);
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g[id];
    if (n.value_kind != ValueKind::Tensor) continue;
    if (n.has_storage) out[id] = (int64_t{1} << 40) + n.storage;
    else if (ops.is_view(n) && !n.positional_inputs.empty()) out[id] = out[n.positional_inputs[0]];
    else out[id] = id;
  }
  return out;
}

// Under ban_recompute_rng_seeds, the random values the backward reads
// (directly or through what it recomputes): seeds, their lookups and random
// ops reading no seed, or a tuple's tensor items. The stages that save only
// the inputs (and MUST_SAVE values) keep these too, as the cut's bans do.
std::vector<NodeId> random_values_to_save(const Graph& g, const Classification& c, const Settings& s) {
  std::vector<NodeId> out;
  if (!BanOptions::from_settings(s).rng_seeds) return out;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!c.required_fw[id] || c.dist_from_bw[id] >= kFarFromBackward) continue;
    if (!recompute_changes_random_numbers(g, id, s.op_classes)) continue;
    if (g[id].value_kind == ValueKind::Tensor) {
      out.push_back(id);
      continue;
    }
    for (NodeId u : g.users[id]) {
      if (g[u].value_kind == ValueKind::Tensor && c.dist_from_bw[u] < kFarFromBackward) out.push_back(u);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

double effective_budget(const Graph& g, const Settings& s) {
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!g[id].has_memory_budget) continue;  // the record is read only where it has one
    const proto::Node& pn = g.record(id);
    {
      const double b = pn.memory_budget();
      if (!(b >= 0 && b <= 1)) {
        throw InputError(g.source + ": node '" + printable(pn.name()) + "': memory_budget = " + std::to_string(b) +
                         " is outside [0, 1]");
      }
      return b;
    }
  }
  return s.activation_memory_budget;
}

BudgetDecision choose_saved_values(const Graph& g, const Classification& c, const Settings& s) {
  BudgetDecision d;
  d.budget = effective_budget(g, s);
  const BanOptions base = BanOptions::from_settings(s);
  if (d.budget == 0) {
    // Budget 0: save only the inputs, no solve.
    d.stage = "inputs_only";
    d.chosen = c.inputs;
    const auto random = random_values_to_save(g, c, s);
    d.chosen.insert(d.chosen.end(), random.begin(), random.end());
    std::sort(d.chosen.begin(), d.chosen.end());
    return d;
  }
  d.solves.push_back(solve_cut(g, c, s, base));
  const std::vector<NodeId>& optimized = d.solves.back().cut.saved;
  d.stage = "default";
  d.chosen = optimized;
  if (d.budget == 1) return d;

  d.min_gb = size_gb(g, c.inputs);
  d.max_gb = size_gb(g, optimized);
  if (d.max_gb <= d.min_gb) return d;  // the default cut is already no larger than the inputs
  const double span = d.max_gb - d.min_gb;
  auto ratio = [&](const std::vector<NodeId>& ids) { return (size_gb(g, ids) - d.min_gb) / span; };

  // More aggressive: far-apart, long-chain and materialized-backward bans off.
  BanOptions more = base;
  more.used_far_apart = more.long_fusible_chains = more.materialized_backward = false;
  d.solves.push_back(solve_cut(g, c, s, more));
  if (ratio(d.solves.back().cut.saved) < d.budget) {
    d.stage = "more_aggressive";
    d.chosen = d.solves.back().cut.saved;
    return d;
  }
  // Aggressive: the allowlist ban off too.
  BanOptions aggressive = more;
  aggressive.not_in_allowlist = false;
  d.solves.push_back(solve_cut(g, c, s, aggressive));
  if (ratio(d.solves.back().cut.saved) < d.budget) {
    d.stage = "aggressive";
    d.chosen = d.solves.back().cut.saved;
    return d;
  }

  // Knapsack over what the aggressive cut banned (in ban order) that the
  // backward needs and that does not alias an input. Random seeds under
  // ban_recompute_rng_seeds are no candidates: the knapsack may not choose
  // to recompute them (and the final cut keeps their bans).
  const auto storage = storages(g, s.op_classes);
  std::set<int64_t> input_storage;
  for (NodeId id : c.inputs) input_storage.insert(storage[id]);
  std::vector<NodeId> candidates, must_save;
  const FlowNetwork& aggressive_net = d.solves.back().network;
  for (NodeId id : aggressive_net.ban_order) {
    if (c.dist_from_bw[id] >= kFarFromBackward || input_storage.count(storage[id])) continue;
    if (aggressive_net.banned[id] == BanReason::RandomSeed) continue;
    (g[id].recompute == Recompute::MustSave ? must_save : candidates).push_back(id);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](NodeId a, NodeId b) { return g[a].size_bytes > g[b].size_bytes; });
  if (candidates.empty()) {
    d.stage = "knapsack_empty";
    d.chosen = c.inputs;
    d.chosen.insert(d.chosen.end(), must_save.begin(), must_save.end());
    for (NodeId id : random_values_to_save(g, c, s)) {
      if (std::find(must_save.begin(), must_save.end(), id) == must_save.end()) d.chosen.push_back(id);
    }
    return d;
  }
  std::vector<double> memory, runtime;
  for (NodeId id : candidates) {
    // The greedy solver ranks by runtime / memory: PyTorch raises
    // ZeroDivisionError on a value of no bytes (a tensor with a 0 dimension).
    // Said here, about the node and the setting, rather than as the solver's
    // internal error.
    if (g[id].size_bytes == 0 && s.activation_memory_budget_solver == "greedy") {
      throw InputError(g.source + ": node '" + printable(g.record(id).name()) +
                       "': val holds 0 bytes, which activation_memory_budget_solver=greedy cannot rank "
                       "(runtime / memory; PyTorch raises ZeroDivisionError): use the dp or ilp solver");
    }
    memory.push_back((static_cast<double>(g[id].size_bytes) / 1e9) / span);
    runtime.push_back(estimate_runtime(g, id));
  }
  const KnapsackResult k = solve_knapsack(s.activation_memory_budget_solver, memory, runtime, std::max(d.budget, 0.0),
                                          s.ilp_time_limit);
  d.solver_note = k.note;
  BanOptions final_options = aggressive;
  final_options.dont_ban.assign(g.size(), false);
  Flags kept(candidates.size(), true);
  for (int idx : k.recomputed) {
    final_options.dont_ban[candidates[idx]] = true;
    kept[idx] = false;
  }
  for (size_t i = 0; i < candidates.size(); ++i) d.items.push_back({candidates[i], memory[i], runtime[i], kept[i]});
  d.solves.push_back(solve_cut(g, c, s, final_options));
  d.stage = "knapsack";
  d.chosen = d.solves.back().cut.saved;
  return d;
}

}  // namespace pt
