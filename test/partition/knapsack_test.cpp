#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "partition/knapsack.h"
#include "partition/memory_budget.h"
#include "settings/settings.h"
#include "prepare/text_graph.h"
#include "graph/errors.h"

using pt::KnapsackResult;
using V = std::vector<double>;
using I = std::vector<int>;

TEST_CASE("python_round rounds half to even on the double value") {
  CHECK(pt::python_round(2.5) == 2);
  CHECK(pt::python_round(3.5) == 4);
  CHECK(pt::python_round(-2.5) == -2);
  CHECK(pt::python_round(-3.5) == -4);
  CHECK(pt::python_round(0.00025 * 10000) == 2);  // exactly 2.5
  CHECK(pt::python_round(0.00015 * 10000) == 1);  // 1.4999999999999998, not a tie
  CHECK(pt::python_round(-0.4) == 0);
  CHECK(pt::python_round(1e17) == 100000000000000000LL);
  CHECK_THROWS_AS(pt::python_round(std::nan("")), std::invalid_argument);
}

TEST_CASE("dp: optimum, backtrack order and total") {
  // {0, 1} uses exactly the 5000 quanta of capacity and is worth 17 > 12.
  KnapsackResult r = pt::dp_knapsack({0.3, 0.2, 0.5}, {10, 7, 12}, 0.5);
  CHECK(r.total_runtime == 17);
  CHECK(r.saved == I{0, 1});
  CHECK(r.recomputed == I{2});

  // Ties keep the earliest item; recomputed comes back in descending order.
  r = pt::dp_knapsack({0.1, 0.1, 0.1}, {1, 1, 1}, 0.1);
  CHECK(r.saved == I{0});
  CHECK(r.recomputed == I{2, 1});
  CHECK(r.total_runtime == 1);
}

TEST_CASE("dp: float32 cells absorb a 1-FLOP item, so it is not kept") {
  // In float64 both fit (1e9 + 1); in float32 1e9 + 1 == 1e9, the cell does
  // not change and item 1 counts as recomputed.
  KnapsackResult r = pt::dp_knapsack({0.5, 0.1}, {1e9, 1}, 1.0);
  CHECK(r.saved == I{0});
  CHECK(r.recomputed == I{1});
  CHECK(r.total_runtime == 1e9);
  // Runtimes are rounded to float32 first: 16777217 -> 16777216.
  r = pt::dp_knapsack({0.1}, {16777217.0}, 1.0);
  CHECK(r.total_runtime == 16777216.0);
}

TEST_CASE("dp: memory and capacity are quantized with round-half-to-even") {
  // 0.00025 * 1e4 = 2.5 -> 2 fits a capacity of round(2.0) = 2 (half-up would give 3).
  KnapsackResult r = pt::dp_knapsack({0.00025}, {5}, 0.0002);
  CHECK(r.saved == I{0});
  // 0.00035 * 1e4 = 3.5 -> 4 does not fit a capacity of 3 (0.0003 * 1e4 = 2.9999999999999996 -> 3).
  r = pt::dp_knapsack({0.00035}, {5}, 0.0003);
  CHECK(r.saved.empty());
  CHECK(r.recomputed == I{0});
  CHECK(r.total_runtime == 0);
  // Capacity 0.00025 -> 2 quanta: an item of 0.0003 (3 quanta) does not fit.
  r = pt::dp_knapsack({0.0003}, {5}, 0.00025);
  CHECK(r.saved.empty());
}

TEST_CASE("dp: items heavier than the capacity are never kept; exact fit is") {
  KnapsackResult r = pt::dp_knapsack({0.5001, 0.5}, {100, 1}, 0.5);
  CHECK(r.saved == I{1});
  CHECK(r.recomputed == I{0});
  CHECK(r.total_runtime == 1);
}

TEST_CASE("dp: zero-memory items are added to every column") {
  // Kept even with zero capacity.
  KnapsackResult r = pt::dp_knapsack({0.0, 0.1}, {5, 7}, 0.0);
  CHECK(r.saved == I{0});
  CHECK(r.recomputed == I{1});
  CHECK(r.total_runtime == 5);
  // Absorbed by float32 (1e9 + 1) or worth nothing: not kept.
  r = pt::dp_knapsack({0.5, 0.0, 0.0}, {1e9, 1, 0}, 0.5);
  CHECK(r.saved == I{0});
  CHECK(r.recomputed == I{2, 1});
  // A memory that quantizes to 0 behaves the same.
  r = pt::dp_knapsack({0.00004}, {3}, 0.0);
  CHECK(r.saved == I{0});
  CHECK(r.total_runtime == 3);
}

TEST_CASE("dp: negative memories follow PyTorch's slicing") {
  // q = -2, width 6: cells 4 and 5 take prev[0] + 3 and prev[1] + 3.
  KnapsackResult r = pt::dp_knapsack({-0.0002}, {3}, 0.0005);
  CHECK(r.saved == I{0});
  CHECK(r.total_runtime == 3);
  // Row 1 = [0,0,0,0,3,3]; row 2 (q = 1) = [0,1,1,1,3,4]; backtrack 5 -> 4 -> 6.
  r = pt::dp_knapsack({-0.0002, 0.0001}, {3, 1}, 0.0005);
  CHECK(r.saved == I{0, 1});
  CHECK(r.total_runtime == 4);
  // q = -10 exceeds the width: the whole row gets max(prev, prev + r).
  r = pt::dp_knapsack({-0.001}, {2}, 0.0005);
  CHECK(r.saved == I{0});
  CHECK(r.total_runtime == 2);
  // The backtrack steps to column 7 of a 6-wide table: PyTorch's IndexError.
  CHECK_THROWS_AS(pt::dp_knapsack({0.0001, -0.0002}, {1, 3}, 0.0005), std::out_of_range);
}

TEST_CASE("dp: edge inputs") {
  KnapsackResult r = pt::dp_knapsack({}, {}, 0.5);
  CHECK(r.total_runtime == 0);
  CHECK(r.saved.empty());
  CHECK(r.recomputed.empty());
  CHECK_THROWS_AS(pt::dp_knapsack({0.1}, {1}, -0.1), std::invalid_argument);
  CHECK_THROWS_AS(pt::dp_knapsack({std::nan("")}, {1}, 0.5), std::invalid_argument);
  CHECK_THROWS_AS(pt::dp_knapsack({0.1}, {1}, INFINITY), std::invalid_argument);
  CHECK_THROWS_AS(pt::dp_knapsack({0.1, 0.2}, {1}, 0.5), std::invalid_argument);
}

TEST_CASE("greedy: ratio order, skipping items that do not fit") {
  // Ratios 20, 10, 30: visit 2, 0, 1. Item 0 overflows (0.7 > 0.6) and is
  // skipped; item 1 still fits (0.3 + 0.3 <= 0.6).
  KnapsackResult r = pt::greedy_knapsack({0.4, 0.3, 0.3}, {8, 3, 9}, 0.6);
  CHECK(r.saved == I{2, 1});
  CHECK(r.recomputed == I{0});
  CHECK(r.total_runtime == 12);
  // Equal ratios keep input order.
  r = pt::greedy_knapsack({0.1, 0.2, 0.1}, {1, 2, 1}, 0.25);
  CHECK(r.saved == I{0, 2});
  CHECK(r.recomputed == I{1});
  // Greedy is not optimal: it takes the 0.6 item (ratio 11.67) and stops at 7.
  r = pt::greedy_knapsack({0.5, 0.5, 0.6}, {5, 5, 7}, 1.0);
  CHECK(r.saved == I{2});
  CHECK(r.recomputed == I{0, 1});
  CHECK(r.total_runtime == 7);
}

TEST_CASE("greedy: zero memory raises as PyTorch's division does") {
  CHECK_THROWS_AS(pt::greedy_knapsack({0.1, 0.0}, {1, 1}, 0.5), std::invalid_argument);
  CHECK_THROWS_AS(pt::greedy_knapsack({0.1}, {std::nan("")}, 0.5), std::invalid_argument);
  KnapsackResult r = pt::greedy_knapsack({}, {}, 0.5);
  CHECK(r.saved.empty());
}

TEST_CASE("ilp: exact optimum") {
  KnapsackResult r = pt::ilp_knapsack({0.3, 0.2, 0.5}, {10, 7, 12}, 0.5);
  CHECK(r.total_runtime == 17);
  CHECK(r.saved == I{0, 1});
  CHECK(r.recomputed == I{2});
  r = pt::ilp_knapsack({0.5, 0.5, 0.6}, {5, 5, 7}, 1.0);
  CHECK(r.total_runtime == 10);
  CHECK(r.saved == I{0, 1});
  r = pt::ilp_knapsack({}, {}, 0.5);
  CHECK(r.total_runtime == 0);
  CHECK_THROWS_AS(pt::ilp_knapsack({0.1}, {1}, -0.5), std::runtime_error);
}

namespace {

double brute_force(const std::vector<int64_t>& q, const V& runtime, int64_t cap) {
  double best = 0;
  const size_t n = q.size();
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    int64_t used = 0;
    double value = 0;
    for (size_t i = 0; i < n; ++i) {
      if (mask >> i & 1u) {
        used += q[i];
        value += runtime[i];
      }
    }
    if (used <= cap && value > best) best = value;
  }
  return best;
}

}  // namespace

TEST_CASE("dp and ilp reach the same optimum on integer-quantized random instances") {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 150; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 12);
    std::vector<int64_t> q(n);
    V memory(n), runtime(n);
    int64_t total_q = 0;
    for (int i = 0; i < n; ++i) {
      q[i] = static_cast<int64_t>(rng() % 300);  // includes zero-memory items
      memory[i] = static_cast<double>(q[i]) / 10000;
      runtime[i] = static_cast<double>(rng() % 1000);  // exact in float32, includes 0
      total_q += q[i];
    }
    const int64_t cap = static_cast<int64_t>(rng() % static_cast<uint64_t>(total_q + 1));
    const double budget = static_cast<double>(cap) / 10000;
    CAPTURE(trial);
    const double best = brute_force(q, runtime, cap);
    const KnapsackResult dp = pt::dp_knapsack(memory, runtime, budget);
    const KnapsackResult ilp = pt::ilp_knapsack(memory, runtime, budget);
    CHECK(dp.total_runtime == best);
    CHECK(ilp.total_runtime == best);
    for (const KnapsackResult* r : {&dp, &ilp}) {
      int64_t used = 0;
      double value = 0;
      for (int i : r->saved) {
        used += q[i];
        value += runtime[i];
      }
      CHECK(used <= cap);
      CHECK(value == best);
      CHECK(r->saved.size() + r->recomputed.size() == static_cast<size_t>(n));
    }
  }
}

TEST_CASE("ilp: the time limit ends a search that branch and bound cannot finish, with a feasible answer") {
  // Jeroslow's problem: 51 equal items, room for 25.5 of them. The
  // relaxation's bound stays half an item above every integer answer, so
  // branch and bound (GLPK's cuts are off) must visit exponentially many
  // nodes to prove 25 optimal.
  const std::vector<double> memory(51, 0.02), runtime(51, 1.5);
  const KnapsackResult r = pt::ilp_knapsack(memory, runtime, 0.51, 0.05);
  CHECK(r.timed_out);
  CHECK((r.note.find("its best feasible answer is kept") != std::string::npos ||
         r.note.find("the dp solver's answer is used") != std::string::npos));
  CHECK(r.note.starts_with("ilp solver: time limit of 0.05 s reached"));
  CHECK(r.saved.size() + r.recomputed.size() == 51);
  CHECK(r.saved.size() <= 25);  // feasible
  CHECK(r.total_runtime == 1.5 * static_cast<double>(r.saved.size()));
  // A search that finishes says nothing.
  const KnapsackResult quick = pt::ilp_knapsack({0.3, 0.2, 0.5}, {10, 7, 12}, 0.5, 0.05);
  CHECK_FALSE(quick.timed_out);
  CHECK(quick.note.empty());
  CHECK_THROWS_AS(pt::ilp_knapsack({0.1}, {1}, 0.5, 0), std::invalid_argument);
}

TEST_CASE("solve_knapsack dispatches on the solver name") {
  CHECK(pt::solve_knapsack("dp", {0.5, 0.5, 0.6}, {5, 5, 7}, 1.0).total_runtime == 10);
  CHECK(pt::solve_knapsack("greedy", {0.5, 0.5, 0.6}, {5, 5, 7}, 1.0).total_runtime == 7);
  CHECK(pt::solve_knapsack("ilp", {0.5, 0.5, 0.6}, {5, 5, 7}, 1.0).total_runtime == 10);
  CHECK_THROWS_AS(pt::solve_knapsack("scipy", {}, {}, 1.0), pt::SettingsError);
}

TEST_CASE("effective_budget: the first node carrying memory_budget overrides the setting") {
  pt::Settings s;
  s.activation_memory_budget = 0.7;
  const char* head = R"(
    nodes { name: "x" op: "placeholder" target: "x" val { tensor { shape: [4] dtype: "float32" } } }
    nodes { name: "e" op: "call_function" target: "aten.exp.default" args { node: "x" }
            val { tensor { shape: [4] dtype: "float32" } } )";
  const char* tail = R"( }
    nodes { name: "f" op: "call_function" target: "aten.exp.default" args { node: "e" }
            val { tensor { shape: [4] dtype: "float32" } } memory_budget: 0.25 }
    nodes { name: "output" op: "output" args { list { items { node: "f" } } } }
    num_fwd_outputs: 1
  )";
  CHECK(pt::effective_budget(pt::test::graph_from_text(std::string(head) + tail), s) == 0.25);
  CHECK(pt::effective_budget(pt::test::graph_from_text(std::string(head) + " memory_budget: 0" + tail), s) == 0.0);
  s.activation_memory_budget = 0.6;
  const std::string none = std::string(head) + tail;
  CHECK(pt::effective_budget(pt::test::graph_from_text(none.substr(0, none.find("memory_budget")) +
                                                       none.substr(none.find("memory_budget") + 19)),
                             s) == 0.6);
}
