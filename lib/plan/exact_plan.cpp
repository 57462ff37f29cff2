#include "plan/exact_plan.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "partition/timed_glpk_mip.h"

namespace pt {

namespace {

// Peak rows in units of the limit and the objective in units of the
// largest single cost: GLPK's tolerances are absolute (1e-7), so rows in
// bytes (10^9) beside seconds (10^-6) left its simplex at the edge of its
// precision, rows in gigabytes ignored values of a few hundred bytes, and
// an objective in milliseconds took plans 5% apart as equal where the
// costs were 10^-10 s (a small chain's).
double cost_unit(const LinearPlanModel& m) {
  double largest = 0;
  for (double s : m.save_seconds) largest = std::max(largest, s);
  for (double s : m.recompute_seconds) largest = std::max(largest, s);
  return largest > 0 ? largest : 1;
}

}  // namespace

const char* exact_status_name(ExactStatus s) {
  switch (s) {
    case ExactStatus::Optimal: return "optimal";
    case ExactStatus::WithinGap: return "within the gap";
    case ExactStatus::TimeLimit: return "time limit";
    case ExactStatus::NoAnswer: return "no answer within the time limit";
    case ExactStatus::Infeasible: return "infeasible";
  }
  return "no answer within the time limit";
}

ExactSolution solve_exact(const LinearPlanModel& m, uint64_t limit, double time_limit_s, double relative_gap) {
  using Mip = lemon::MipSolver;
  const auto start = std::chrono::steady_clock::now();
  const size_t n = m.values.size();
  const double bytes_unit = static_cast<double>(std::max<uint64_t>(limit, 1));
  const double seconds_unit = cost_unit(m);
  // GLPK's presolver: with it gpt2_124m's solves at 85-100% of the
  // default peak took 0.1 s, without it 3-10 s.
  TimedGlpkMip mip(time_limit_s, {.presolve = true, .relative_gap = relative_gap});
  mip.messageLevel(lemon::LpBase::MESSAGE_NOTHING);
  std::vector<Mip::Col> save(n), recompute(n);
  std::vector<bool> has_recompute(n, false);
  Mip::Expr objective;
  for (size_t v = 0; v < n; ++v) {
    save[v] = mip.addCol();
    mip.colType(save[v], Mip::INTEGER);
    mip.colBounds(save[v], 0, m.may_save[v] ? 1 : 0);
    objective += (m.save_seconds[v] / seconds_unit) * save[v];
    if (!m.may_recompute[v]) continue;
    has_recompute[v] = true;
    recompute[v] = mip.addCol();
    mip.colType(recompute[v], Mip::INTEGER);
    mip.colBounds(recompute[v], 0, 1);
    objective += (m.recompute_seconds[v] / seconds_unit) * recompute[v];
  }
  auto either = [&](size_t v) {
    Mip::Expr e = save[v];
    if (has_recompute[v]) e += recompute[v];
    return e;
  };
  for (size_t v = 0; v < n; ++v) {
    if (m.needed[v]) mip.addRow(either(v) >= 1);
    if (!has_recompute[v]) continue;
    mip.addRow(either(v) <= 1);
    for (int32_t u : m.inputs[v]) mip.addRow(recompute[v] - either(static_cast<size_t>(u)) <= 0);
  }
  for (const LinearStep& step : m.steps) {
    uint64_t most = step.baseline;
    Mip::Expr live;
    for (const LinearTerm& term : step.saved) {
      most += term.bytes;
      live += (static_cast<double>(term.bytes) / bytes_unit) * save[static_cast<size_t>(term.value)];
    }
    for (const LinearTerm& term : step.recomputed) {
      if (!has_recompute[static_cast<size_t>(term.value)]) continue;
      most += term.bytes;
      live += (static_cast<double>(term.bytes) / bytes_unit) * recompute[static_cast<size_t>(term.value)];
    }
    if (most <= limit) continue;  // fits whatever is chosen
    const double room = (static_cast<double>(limit) - static_cast<double>(step.baseline)) / bytes_unit;
    mip.addRow(live <= room);
  }
  mip.min();
  mip.obj(objective);

  ExactSolution out;
  const bool solved = mip.solve() == Mip::SOLVED;
  if (solved && mip.type() == Mip::OPTIMAL) out.status = ExactStatus::Optimal;
  else if (mip.stopped_at_gap()) out.status = ExactStatus::WithinGap;
  else if (mip.type() == Mip::FEASIBLE || mip.type() == Mip::OPTIMAL) out.status = ExactStatus::TimeLimit;
  else if (solved) out.status = ExactStatus::Infeasible;
  else out.status = ExactStatus::NoAnswer;
  if (out.has_answer()) {
    out.choice.saved.assign(n, 0);
    out.choice.recomputed.assign(n, 0);
    for (size_t v = 0; v < n; ++v) {
      if (mip.sol(save[v]) > 0.5) {
        out.saved.push_back(m.values[v]);
        out.choice.saved[v] = 1;
      }
      if (has_recompute[v] && mip.sol(recompute[v]) > 0.5) out.choice.recomputed[v] = 1;
    }
    out.objective = linear_seconds(m, out.choice);
    out.saved.insert(out.saved.end(), m.graph_inputs.begin(), m.graph_inputs.end());
    out.saved.insert(out.saved.end(), m.saved_symbols.begin(), m.saved_symbols.end());
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace pt
