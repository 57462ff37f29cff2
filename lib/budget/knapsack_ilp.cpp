// The exact knapsack as a MIP through LEMON's default Mip (GLPK on Debian).
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <lemon/lp.h>

#include "budget/knapsack.h"

namespace pt {

KnapsackResult ilp_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                            double max_memory) {
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
  KnapsackResult result;
  if (n == 0) return result;

  lemon::Mip mip;
  mip.messageLevel(lemon::Mip::MESSAGE_NOTHING);
  std::vector<lemon::Mip::Col> x(static_cast<size_t>(n));
  lemon::Mip::Expr used;
  lemon::Mip::Expr value;
  for (int i = 0; i < n; ++i) {
    x[i] = mip.addCol();
    mip.colType(x[i], lemon::Mip::INTEGER);
    mip.colLowerBound(x[i], 0);
    mip.colUpperBound(x[i], 1);
    used += memory[i] * x[i];
    value += runtime[i] * x[i];
  }
  mip.addRow(used <= max_memory);
  mip.obj(value);
  mip.max();
  if (mip.solve() != lemon::Mip::SOLVED || mip.type() != lemon::Mip::OPTIMAL) {
    throw std::runtime_error("ilp knapsack: GLPK found no optimal solution (capacity " +
                             std::to_string(max_memory) + ")");
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
