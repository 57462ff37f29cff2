// The quantized DP and greedy knapsack solvers, plus the solver dispatch.
// The ILP lives in knapsack_ilp.cpp (it is the only one that needs LEMON).
#include "partition/knapsack.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "graph/errors.h"

namespace pt {

namespace {

constexpr double kQuantization = 10000;  // PyTorch's S

void check_lengths(const char* solver, const std::vector<double>& memory, const std::vector<double>& runtime) {
  if (memory.size() != runtime.size()) {
    throw std::invalid_argument(std::string(solver) + " knapsack: " + std::to_string(memory.size()) +
                                " memories but " + std::to_string(runtime.size()) + " runtimes");
  }
  if (memory.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw std::invalid_argument(std::string(solver) + " knapsack: too many items");
  }
}

// torch.maximum: NaN when either side is NaN.
float torch_maximum(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  return a > b ? a : b;
}

// One bit per DP cell: set when the cell differs (torch's !=) from the row above.
class ChangeBits {
 public:
  ChangeBits(size_t rows, size_t width) : width_(width) {
    if (width != 0 && rows > std::numeric_limits<size_t>::max() / 2 / width) {
      throw std::invalid_argument("dp knapsack: table too large");
    }
    bits_.assign((rows * width + 63) / 64, 0);
  }
  void set(size_t row, size_t col) {
    const size_t k = row * width_ + col;
    bits_[k / 64] |= uint64_t{1} << (k % 64);
  }
  bool get(size_t row, size_t col) const {
    const size_t k = row * width_ + col;
    return (bits_[k / 64] >> (k % 64)) & 1u;
  }

 private:
  size_t width_;
  std::vector<uint64_t> bits_;
};

}  // namespace

long long python_round(double x) {
  if (!std::isfinite(x)) throw std::invalid_argument("cannot round a non-finite value");
  // Every double at or above 2^52 in magnitude is already an integer.
  double r = std::floor(x);
  const double diff = x - r;  // exact for |x| < 2^52
  if (diff > 0.5 || (diff == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  if (r < -9.2e18 || r > 9.2e18) throw std::invalid_argument("rounded value outside int64");
  return static_cast<long long>(r);
}

KnapsackResult dp_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                           double max_memory) {
  check_lengths("dp", memory, runtime);
  const size_t n = memory.size();
  std::vector<long long> q(n);
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(memory[i])) {
      throw std::invalid_argument("dp knapsack: memory[" + std::to_string(i) + "] is not finite");
    }
    q[i] = python_round(memory[i] * kQuantization);
  }
  if (!std::isfinite(max_memory)) throw std::invalid_argument("dp knapsack: max_memory is not finite");
  const long long cap = python_round(max_memory * kQuantization);
  if (cap < 0) throw std::invalid_argument("dp knapsack: negative capacity " + std::to_string(cap));
  if (cap > (1LL << 40)) throw std::invalid_argument("dp knapsack: capacity too large");
  const long long width = cap + 1;

  std::vector<float> prev(static_cast<size_t>(width), 0.0f);
  std::vector<float> cur(prev.size());
  ChangeBits changed(n, prev.size());
  for (size_t i = 0; i < n; ++i) {
    const float r = static_cast<float>(runtime[i]);
    const long long m = q[i];
    cur = prev;
    if (m == 0) {
      for (long long j = 0; j < width; ++j) cur[j] = prev[j] + r;
    } else if (m > 0) {
      for (long long j = m; j < width; ++j) cur[j] = torch_maximum(prev[j], prev[j - m] + r);
    } else {
      // dp[i, m:] = maximum(dp[i-1, m:], dp[i-1, :-m] + r) with m < 0: the
      // last min(-m, width) columns against the first ones.
      const long long len = std::min(-m, width);
      for (long long t = 0; t < len; ++t) {
        const long long j = width - len + t;
        cur[j] = torch_maximum(prev[j], prev[t] + r);
      }
    }
    for (long long j = 0; j < width; ++j) {
      if (cur[j] != prev[j]) changed.set(i, static_cast<size_t>(j));  // NaN != NaN, as in torch
    }
    std::swap(prev, cur);
  }

  KnapsackResult result;
  result.total_runtime = static_cast<double>(prev[static_cast<size_t>(cap)]);
  long long j = cap;
  for (size_t k = n; k-- > 0;) {
    long long col = j < 0 ? j + width : j;  // Python indexing wraps negatives
    if (col < 0 || col >= width) {
      throw std::out_of_range("dp knapsack: backtrack column " + std::to_string(j) + " is outside the table");
    }
    if (changed.get(k, static_cast<size_t>(col))) {
      result.saved.push_back(static_cast<int>(k));
      j -= q[k];
    } else {
      result.recomputed.push_back(static_cast<int>(k));
    }
  }
  std::reverse(result.saved.begin(), result.saved.end());
  return result;
}

KnapsackResult greedy_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                               double max_memory) {
  check_lengths("greedy", memory, runtime);
  const size_t n = memory.size();
  std::vector<double> ratio(n);
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(memory[i]) || !std::isfinite(runtime[i])) {
      throw std::invalid_argument("greedy knapsack: item " + std::to_string(i) + " is not finite");
    }
    if (memory[i] == 0) {
      throw std::invalid_argument("greedy knapsack: item " + std::to_string(i) +
                                  " has zero memory (PyTorch's runtime / memory raises ZeroDivisionError)");
    }
    ratio[i] = runtime[i] / memory[i];
  }
  if (std::isnan(max_memory)) throw std::invalid_argument("greedy knapsack: max_memory is NaN");
  std::vector<int> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ratio[a] > ratio[b]; });

  KnapsackResult result;
  double total_memory = 0;
  for (int i : order) {
    if (total_memory + memory[i] <= max_memory) {
      total_memory += memory[i];
      result.total_runtime += runtime[i];
      result.saved.push_back(i);
    } else {
      result.recomputed.push_back(i);
    }
  }
  return result;
}

KnapsackResult solve_knapsack(std::string_view solver, const std::vector<double>& memory,
                              const std::vector<double>& runtime, double max_memory, double ilp_time_limit_s) {
  if (solver == "dp") return dp_knapsack(memory, runtime, max_memory);
  if (solver == "greedy") return greedy_knapsack(memory, runtime, max_memory);
  if (solver == "ilp") return ilp_knapsack(memory, runtime, max_memory, ilp_time_limit_s);
  throw SettingsError("activation_memory_budget_solver = '" + std::string(solver) +
                      "' is not one of dp, greedy, ilp");
}

}  // namespace pt
