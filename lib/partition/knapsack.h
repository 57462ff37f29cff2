// 0-1 knapsack solvers of the activation memory budget (docs/design.md section 5),
// with the exact semantics of PyTorch 2.11's
// torch/_functorch/_activation_checkpointing/knapsack.py.
//
// Inputs are parallel lists: item i costs memory[i] (a fraction of the
// budgetable activation memory) and is worth runtime[i] (its estimated
// recompute cost, see runtime_estimate.h); max_memory is the budget b. Every
// solver maximises the runtime of the items kept ("saved"); the others may be
// recomputed. Index lists are in the order PyTorch returns them:
//
//   dp      saved ascending, recomputed DESCENDING (the backtrack order);
//           total = the float32 table cell dp[n][capacity], widened.
//   greedy  both in visiting order (runtime/memory descending, stable);
//           total = double sum of the saved runtimes in that order.
//   ilp     both ascending; total = double sum of the saved runtimes.
//
// Differences from PyTorch, all on inputs its partitioner never produces:
// inputs of unequal length throw std::invalid_argument (PyTorch zips or
// raises IndexError); see each solver for non-finite values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pt {

struct KnapsackResult {
  double total_runtime = 0;
  std::vector<int> saved;       // indices into the inputs
  std::vector<int> recomputed;  // the other indices
  bool timed_out = false;       // ilp: the time limit ended the search
  std::string note;             // ilp: what was used instead of a proven optimum ("" when proven)
};

// Quantized dynamic programme (PyTorch's default solver, `dp`).
// memory and capacity are quantized as Python's round(x * 10000) (half to
// even); runtimes are converted to float32 and the table is float32, so an
// item whose runtime is too small to change a large cell counts as not kept.
// Row i starts as row i-1; a quantized memory m > 0 updates the columns
// j >= m with max(prev[j], prev[j - m] + r) (nothing when m exceeds the
// capacity); m == 0 adds r to every column; m < 0 follows PyTorch's slicing
// (dp[i, m:] vs dp[i-1, :-m]: the last min(-m, width) columns against the
// first ones). Backtracking from j = capacity keeps item i only when its cell
// differs from the row above, then j -= m_i; a j past the table's end throws
// std::out_of_range where PyTorch raises IndexError, a negative one wraps as
// Python indexing does. NaN runtimes propagate as in torch.maximum.
// Throws std::invalid_argument for a non-finite memory or max_memory (Python's
// round() raises) and for a negative capacity (torch.zeros raises).
// Memory use: two float rows plus one bit per table cell.
KnapsackResult dp_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                           double max_memory);

// Greedy by runtime / memory, descending, ties in input order; each item is
// taken when the running memory total plus its memory is <= max_memory, and
// skipped (not stopping the scan) otherwise. An item of zero memory throws
// std::invalid_argument, as PyTorch's division raises ZeroDivisionError;
// non-finite inputs throw std::invalid_argument too (PyTorch's sort order is
// then unspecified).
KnapsackResult greedy_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                               double max_memory);

// Exact 0-1 knapsack as a mixed-integer programme (LEMON's Mip over GLPK, all
// output silenced): maximise sum runtime[i] * x_i subject to
// sum memory[i] * x_i <= max_memory, x_i in {0, 1}, on the unquantized
// doubles. Its optimum value is the true optimum (up to GLPK's tolerances);
// WHICH optimal set it returns when several tie is GLPK's choice and cannot
// be expected to match PyTorch's solver (scipy.optimize.milp / HiGHS), so the
// saved set may differ from PyTorch's under `ilp` even when the value agrees.
// PyTorch reports HiGHS's objective value; this reports the sum of the kept
// runtimes. x_i is kept when its value is above 0.5 (PyTorch: exactly 1).
// GLPK's branch and bound can run for hours (near-equal ratios):
// `time_limit_s` bounds the relaxation and the search each (not PyTorch's,
// whose HiGHS has none). On expiry the best feasible answer found is kept,
// or without one the dp solver's is used; `timed_out` and `note` say which.
// Throws std::invalid_argument for non-finite inputs or a limit not above 0
// and std::runtime_error when GLPK finds no optimum (e.g. a negative
// max_memory; PyTorch raises "Somehow scipy solving failed").
KnapsackResult ilp_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                            double max_memory, double time_limit_s = 10);

// Dispatches on activation_memory_budget_solver: "dp", "greedy" or "ilp".
// Throws SettingsError for any other name (PyTorch: "Not aware of memory
// budget knapsack solver").
// `ilp_time_limit_s`: the ilp solver's time limit (setting ilp_time_limit).
KnapsackResult solve_knapsack(std::string_view solver, const std::vector<double>& memory,
                              const std::vector<double>& runtime, double max_memory, double ilp_time_limit_s = 10);

// Python's round(x) for a finite double: nearest integer, ties to even.
// Throws std::invalid_argument when x is not finite or outside int64.
long long python_round(double x);

}  // namespace pt
