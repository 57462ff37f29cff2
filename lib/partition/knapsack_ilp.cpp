// The exact knapsack as a MIP through LEMON's MIP interface over GLPK, with
// a time limit (timed_glpk_mip.h says why): on expiry the best feasible
// answer is kept, or dp's answer when there is none, and the note says so.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "partition/knapsack.h"
#include "partition/timed_glpk_mip.h"

namespace pt {

namespace {

std::string seconds_text(double seconds) {
  std::string text = std::to_string(seconds);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

KnapsackResult ilp_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                            double max_memory, double time_limit_s) {
  if (memory.size() != runtime.size()) {
    throw std::invalid_argument("ilp knapsack: " + std::to_string(memory.size()) + " memories but " +
                                std::to_string(runtime.size()) + " runtimes");
  }
  const int n = static_cast<int>(memory.size());
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(memory[i]) || !std::isfinite(runtime[i])) {
      throw std::invalid_argument("ilp knapsack: item " + std::to_string(i) + " is not finite");
    }
  }
  if (!std::isfinite(max_memory)) throw std::invalid_argument("ilp knapsack: max_memory is not finite");
  if (!(time_limit_s > 0)) throw std::invalid_argument("ilp knapsack: the time limit must be positive");
  KnapsackResult result;
  if (n == 0) return result;

  TimedGlpkMip mip(time_limit_s);
  mip.messageLevel(lemon::LpBase::MESSAGE_NOTHING);
  std::vector<lemon::MipSolver::Col> x(static_cast<size_t>(n));
  lemon::MipSolver::Expr used, value;
  for (int i = 0; i < n; ++i) {
    x[i] = mip.addCol();
    mip.colType(x[i], lemon::MipSolver::INTEGER);
    mip.colBounds(x[i], 0, 1);
    used += memory[i] * x[i];
    value += runtime[i] * x[i];
  }
  mip.addRow(used <= max_memory);
  mip.max();
  mip.obj(value);

  const std::string failed = "ilp knapsack: GLPK found no optimal solution (capacity " + std::to_string(max_memory) + ")";
  const std::string limit = "ilp solver: time limit of " + seconds_text(time_limit_s) + " s reached";
  const bool solved = mip.solve() == lemon::MipSolver::SOLVED;
  if (!solved && !mip.timed_out()) throw std::runtime_error(failed);
  if (mip.timed_out()) {
    if (mip.type() != lemon::MipSolver::FEASIBLE && mip.type() != lemon::MipSolver::OPTIMAL) {
      KnapsackResult dp = dp_knapsack(memory, runtime, max_memory);
      dp.timed_out = true;
      dp.note = limit + " with no feasible answer; the dp solver's answer is used (ilp_time_limit)";
      return dp;
    }
    result.timed_out = true;
    result.note = limit + "; its best feasible answer is kept, not proven optimal (ilp_time_limit)";
  } else if (mip.type() != lemon::MipSolver::OPTIMAL) {
    throw std::runtime_error(failed);
  }
  for (int i = 0; i < n; ++i) {
    if (mip.sol(x[i]) > 0.5) {
      result.saved.push_back(i);
      result.total_runtime += runtime[i];
    } else {
      result.recomputed.push_back(i);
    }
  }
  return result;
}

}  // namespace pt
