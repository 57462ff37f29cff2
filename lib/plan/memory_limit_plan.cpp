#include "plan/memory_limit_plan.h"

#include <algorithm>
#include <chrono>

#include "graph/errors.h"
#include "graph/human_units.h"
#include "plan/block_checkpoints.h"
#include "plan/exact_candidate.h"
#include "plan/knob_candidates.h"
#include "plan/live_at_plan_peak.h"
#include "plan/value_search.h"

namespace pt {

namespace {

// Faster first; then the smaller peak; then the earlier candidate.
bool better(const PlanCandidate& a, size_t ia, const PlanCandidate& b, size_t ib) {
  if (a.step_seconds != b.step_seconds) return a.step_seconds < b.step_seconds;
  if (a.peak_bytes != b.peak_bytes) return a.peak_bytes < b.peak_bytes;
  return ia < ib;
}

// Knob plans no other knob plan beats on both peak and time, by peak
// ascending: where the per-value search starts.
std::vector<size_t> knob_frontier(const std::vector<PlanCandidate>& knobs) {
  std::vector<size_t> order;
  for (size_t i = 0; i < knobs.size(); ++i) {
    if (knobs[i].error.empty()) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (knobs[a].peak_bytes != knobs[b].peak_bytes) return knobs[a].peak_bytes < knobs[b].peak_bytes;
    return better(knobs[a], a, knobs[b], b);
  });
  std::vector<size_t> frontier;
  for (size_t i : order) {
    if (frontier.empty() || knobs[i].step_seconds < knobs[frontier.back()].step_seconds) frontier.push_back(i);
  }
  return frontier;
}

// The search starts from the frontier's ends (its lowest peak, which it
// lowers further; the fastest plan) and its middle: three descents keep
// the planner within seconds on 10^4-node graphs.
std::vector<size_t> search_starts(const std::vector<size_t>& frontier) {
  std::vector<size_t> starts;
  if (frontier.empty()) return starts;
  for (size_t at : {size_t{0}, frontier.size() / 2, frontier.size() - 1}) {
    if (std::find(starts.begin(), starts.end(), frontier[at]) == starts.end()) starts.push_back(frontier[at]);
  }
  return starts;
}

// The exact plans at the ladder's limits (memory_limit_plan.h), one after
// the other (GLPK keeps global state), from the highest down. Where the
// ILP has no answer (infeasible, or none within the time limit) it has
// none at a lower limit either, or a harder search: the ladder stops.
void add_exact_candidates(const Graph& prepared, const PartitionResult& lent, const Settings& base,
                          const Device& device, const BandwidthOptions& o, PlanCandidates& out) {
  if (base.memory_limit_ilp_time_limit <= 0) {
    out.exact_skipped = "memory_limit_ilp_time_limit is 0";
    return;
  }
  if (prepared.size() > kExactMaxNodes) {
    out.exact_skipped = "the graph's " + std::to_string(prepared.size()) + " nodes are over the exact plan's " +
                        std::to_string(kExactMaxNodes);
    return;
  }
  // Read before the ladder adds candidates (a reference into out.all would
  // not survive them).
  const uint64_t default_peak = out.all.front().peak_bytes;
  if (!out.all.front().error.empty()) {
    out.exact_skipped = "the default plan has no finite cut";
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  auto model = std::make_shared<LinearPlanModel>(build_linear_model(prepared, lent, base, device, o));
  // The whole ladder shares one memory_limit_ilp_time_limit: on gpt2_124m
  // each rung ran to its own limit, and fourteen of them made a 0.2 s plan
  // take 27 s. A rung gets what the rungs before it left. The rows a rung
  // learns from its simulations stay for the rungs below it.
  for (auto it = std::rbegin(kExactLadder); it != std::rend(kExactLadder); ++it) {
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double left = base.memory_limit_ilp_time_limit - spent;
    if (left < 0.01) break;
    const auto limit = static_cast<uint64_t>(static_cast<double>(default_peak) * *it);
    ExactCandidate c = exact_candidate(prepared, lent, base, *model, limit, {left, kExactLadderGap}, device, o);
    if (!c.solution.has_answer()) break;
    if (!c.plan.error.empty()) continue;
    out.all.push_back(std::move(c.plan));
    ++out.exact_count;
  }
  out.linear = std::move(model);
  out.exact_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Settings plan_settings(const Settings& base, const PlanCandidate& c) { return knob_settings(base, c); }

PartitionResult partition_plan(const Graph& prepared, const Settings& base, const PlanCandidate& c) {
  const Settings s = plan_settings(base, c);
  PartitionResult r = partition_graph(prepared, s);
  if (is_pytorch_knob(c.family)) return r;
  PartitionResult edited = partition_with_saved(prepared, r, c.saved);
  edited.timings = std::move(r.timings);
  return edited;
}

PlanCandidates plan_candidates(const Graph& prepared, const Settings& base, const Device& device,
                               const BandwidthOptions& o, unsigned jobs) {
  const auto start = std::chrono::steady_clock::now();
  PlanCandidates out;
  out.all = knob_candidates(prepared);
  evaluate_knob_candidates(prepared, base, device, o, jobs, out.all);
  out.knob_count = out.all.size();
  // Classification and op lookups do not depend on the knobs: one partition
  // lends them to every search.
  const PartitionResult lent = partition_graph(prepared, base);
  std::vector<PlanCandidate> blocks = block_checkpoint_candidates(prepared, lent, base, device, o, jobs);
  out.block_count = blocks.size();
  out.all.insert(out.all.end(), std::make_move_iterator(blocks.begin()), std::make_move_iterator(blocks.end()));
  // The search starts from the knob and block plans.
  const std::vector<PlanCandidate> starts = out.all;
  for (size_t at : search_starts(knob_frontier(starts))) {
    auto found = search_values(prepared, lent, base, starts[at], device, o, jobs);
    out.all.insert(out.all.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  }
  add_exact_candidates(prepared, lent, base, device, o, out);
  bool any = false;
  for (size_t i = 0; i < out.all.size(); ++i) {
    const PlanCandidate& c = out.all[i];
    if (!c.error.empty()) continue;
    if (!any || c.peak_bytes < out.all[out.lowest_peak].peak_bytes) out.lowest_peak = i;
    any = true;
  }
  if (any) {
    const PlanCandidate& low = out.all[out.lowest_peak];
    out.lowest_peak_live = live_at_peak_text(
        prepared, live_at_plan_peak(prepared, partition_plan(prepared, base, low), plan_settings(base, low), device, o));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::string limit_text(uint64_t limit, double fraction, uint64_t default_peak) {
  if (fraction <= 0) return human_bytes(limit);
  return human_bytes(limit) + ", " + MemoryLimit{0, fraction}.text() + " of the default plan's " +
         human_bytes(default_peak) + " peak";
}

MemoryPlan choose_plan(const PlanCandidates& candidates, const MemoryLimit& setting) {
  const auto& all = candidates.all;
  const uint64_t default_peak = all.empty() ? 0 : all.front().peak_bytes;
  const uint64_t limit = setting.resolve(default_peak);
  std::optional<size_t> chosen, best_knob;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!all[i].fits(limit)) continue;
    if (!chosen || better(all[i], i, all[*chosen], *chosen)) chosen = i;
    if (is_pytorch_knob(all[i].family) && (!best_knob || better(all[i], i, all[*best_knob], *best_knob))) best_knob = i;
  }
  if (!chosen) {
    std::string line = "memory_limit " + limit_text(limit, setting.fraction, default_peak) + ": no plan fits; ";
    if (candidates.all.empty() || !all[candidates.lowest_peak].error.empty()) {
      throw InfeasibleError(line + "no candidate plan has a finite cut");
    }
    const PlanCandidate& low = all[candidates.lowest_peak];
    throw InfeasibleError(line + "the smallest peak reached is " + human_bytes(low.peak_bytes) + " (" +
                          low.description() + "), at node '" + low.peak_at + "' (" + low.peak_pass +
                          "); live there: " + candidates.lowest_peak_live);
  }
  MemoryPlan plan;
  plan.limit = limit;
  plan.limit_fraction = setting.fraction;
  plan.default_peak = default_peak;
  plan.chosen = all[*chosen];
  if (best_knob) plan.best_knob = all[*best_knob];
  plan.candidate_count = all.size();
  plan.knob_count = candidates.knob_count;
  plan.block_count = candidates.block_count;
  plan.exact_count = candidates.exact_count;
  plan.search_seconds = candidates.seconds;
  // The next best: of the plans faster than the chosen one (none fits),
  // the one nearest to fitting; else the fastest fitting one after it.
  std::optional<size_t> over, runner_up;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i == *chosen || !all[i].error.empty()) continue;
    if (!all[i].fits(limit)) {
      if (better(all[i], i, all[*chosen], *chosen) &&
          (!over || all[i].peak_bytes < all[*over].peak_bytes ||
           (all[i].peak_bytes == all[*over].peak_bytes && better(all[i], i, all[*over], *over)))) {
        over = i;
      }
    } else if (!runner_up || better(all[i], i, all[*runner_up], *runner_up)) {
      runner_up = i;
    }
  }
  if (over) {
    plan.rejected = all[*over];
    plan.rejected_why = "peak " + human_bytes(all[*over].peak_bytes) + " is " +
                        human_bytes(all[*over].peak_bytes - limit) + " over the limit";
  } else if (runner_up) {
    plan.rejected = all[*runner_up];
    plan.rejected_why = "fits, but predicted " + human_seconds(all[*runner_up].step_seconds - plan.chosen.step_seconds) +
                        " slower";
  }
  plan.optimality = "the fastest of " + std::to_string(all.size()) + " predicted candidates (" +
                    std::to_string(candidates.knob_count) + " knob plans, " + std::to_string(candidates.block_count) +
                    " block plans, " + std::to_string(candidates.exact_count) +
                    " exact, the rest from the per-value search); not certified";
  return plan;
}

void certify_plan(MemoryPlan& plan, const PlanCandidates& candidates, const Graph& prepared, const Settings& base,
                  const Device& device, const BandwidthOptions& o) {
  plan.proven_optimal = false;
  const std::string chosen = "the fastest of " + std::to_string(plan.candidate_count) + " predicted candidates; ";
  if (!candidates.linear) {
    plan.optimality = chosen + "not proven optimal: no exact solver ran (" + candidates.exact_skipped + ")";
    return;
  }
  // A copy: the rows this solve learns are for this limit's certificate,
  // not for the candidates (fixed before the limit was read).
  LinearPlanModel m = *candidates.linear;
  const PartitionResult lent = partition_graph(prepared, base);
  const ExactCandidate exact =
      exact_candidate(prepared, lent, base, m, plan.limit, {base.memory_limit_ilp_time_limit, 0}, device, o);
  const ExactSolution& sol = exact.solution;
  const std::string rows = std::to_string(m.steps.size()) + " peak rows (" + std::to_string(m.learned_rows) +
                           " learned from simulated plans)";
  if (!sol.has_answer()) {
    plan.optimality = chosen + "not proven optimal: the ILP at the limit " +
                      (sol.status == ExactStatus::Infeasible
                           ? "has no answer within the linear model's " + rows
                           : std::string("found no answer within memory_limit_ilp_time_limit"));
    return;
  }
  const double cost = linear_seconds(m, linear_choice(m, partition_plan(prepared, base, plan.chosen)));
  plan.linear_seconds = cost;
  if (sol.status == ExactStatus::Optimal) plan.linear_optimum_seconds = sol.objective;
  const std::string ilp = "the ILP at the limit (" + std::string(exact_status_name(sol.status)) + ", " + rows +
                          ") costs " + human_seconds(sol.objective) + " under the linear time model, the chosen plan " +
                          human_seconds(cost);
  if (sol.status != ExactStatus::Optimal) {
    plan.optimality = chosen + "not proven optimal: " + ilp + ", and the time limit stopped GLPK before a proof";
    return;
  }
  if (!exact.plan.error.empty()) {
    plan.optimality = chosen + "not proven optimal: " + ilp + ", and its answer has no plan (" + exact.plan.error + ")";
    return;
  }
  if (!exact.plan.fits(plan.limit)) {
    plan.optimality = chosen + "not proven optimal: " + ilp + ", and its plan simulates at " +
                      human_bytes(exact.plan.peak_bytes) + ", over the limit, after " + std::to_string(exact.solves) +
                      " solves (the model's rows let through plans the simulation does not fit)";
    return;
  }
  if (cost > sol.objective * (1 + 1e-9) + 1e-12) {
    plan.optimality = chosen + "not proven optimal: " + ilp;
    return;
  }
  if (exact.plan.step_seconds < plan.chosen.step_seconds) {
    plan.optimality = chosen + "not proven optimal: it is optimal under the linear model, but the full model "
                      "predicts the ILP's own plan " + human_seconds(plan.chosen.step_seconds - exact.plan.step_seconds) +
                      " faster (kept out to keep plans monotone in the limit)";
    return;
  }
  plan.proven_optimal = true;
  plan.optimality = chosen + "proven optimal under the linear model: GLPK proved that no save/recompute choice "
                    "within the model's " + rows + " at the limit costs less than " + human_seconds(sol.objective) +
                    " under the linear time model; that optimum's plan simulates at " +
                    human_bytes(exact.plan.peak_bytes) + ", within the limit; the chosen plan costs no more (" +
                    human_seconds(cost) + ") and the full model predicts the optimum's plan no faster";
}

}  // namespace pt
