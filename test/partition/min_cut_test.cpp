// The contracted, component-wise min-cut solver (Preflow's first phase on
// each component) against the plain reference (preflow_reference.h: LEMON
// Preflow's both phases on the whole network, then the reverse residual
// search from the sink). On thousands of random networks, with many
// infinite arcs, ties and disconnected parts, on capacities from 0 to past
// 2^1024, and on every flow network shipped in test/corpus, the flow value,
// the feasibility and the sink side must be identical.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "partition/cut_contraction.h"
#include "partition/dimacs.h"
#include "partition/min_cut.h"
#include "partition/preflow_reference.h"

namespace {

using pt::FlowArc;
using pt::FlowValue;
using pt::kInfinite;

// A random network: mostly sparse forward arcs (as a DAG of graph nodes
// gives), some backward ones, source and sink arcs, about a fifth infinite,
// capacities small enough to create many equal cuts. `scale` multiplies
// the finite capacities (a power of two keeps them exact doubles and keeps
// the ties).
std::vector<FlowArc> random_network(std::mt19937& rng, int32_t n, int32_t arcs, double scale = 1) {
  std::uniform_int_distribution<int32_t> vertex(0, n - 1);
  std::uniform_int_distribution<int> capacity(0, 6);
  std::uniform_int_distribution<int> percent(0, 99);
  std::vector<FlowArc> out;
  for (int32_t k = 0; k < arcs; ++k) {
    int32_t a = vertex(rng), b = vertex(rng);
    if (percent(rng) < 80 && a > b) std::swap(a, b);
    if (percent(rng) < 10) a = 0;  // source
    if (percent(rng) < 10) b = 1;  // sink
    if (a == b) continue;
    out.push_back({a, b, percent(rng) < 20 ? kInfinite : scale * capacity(rng)});
  }
  return out;
}

void check_same(int32_t n, const std::vector<FlowArc>& arcs, int32_t source = 0, int32_t sink = 1) {
  const pt::ReferenceCut want = pt::preflow_reference_cut(n, arcs, source, sink);
  const pt::MinCut got = pt::solve_min_cut(n, arcs, source, sink);
  REQUIRE(got.feasible == want.feasible);
  if (!want.feasible) return;
  CHECK(got.value == want.value);
  CHECK(got.sink_side == want.sink_side);
}

FlowValue power_of_two(int exponent) { return FlowValue(1) << exponent; }

}  // namespace

TEST_CASE("random networks: same value, feasibility and sink side as Preflow on the whole network") {
  std::mt19937 rng(20240611);
  int feasible = 0;
  for (int round = 0; round < 3000; ++round) {
    const int32_t n = 2 + static_cast<int32_t>(rng() % 40);
    const int32_t m = static_cast<int32_t>(rng() % (3 * n + 1));
    const auto arcs = random_network(rng, n, m);
    INFO("round " << round << ": " << n << " vertices, " << arcs.size() << " arcs");
    check_same(n, arcs);
    feasible += pt::solve_min_cut(n, arcs, 0, 1).feasible;
  }
  CHECK(feasible > 1000);  // the rounds exercise both outcomes
  CHECK(feasible < 3000);
}

TEST_CASE("larger random networks with long chains of infinite arcs") {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    const int32_t n = 200 + static_cast<int32_t>(rng() % 800);
    auto arcs = random_network(rng, n, 2 * n);
    for (int32_t v = 2; v + 1 < n; v += 3) arcs.push_back({v, v + 1, kInfinite});
    INFO("round " << round);
    check_same(n, arcs);
  }
}

TEST_CASE("contraction: forced sides, the constant and independent components") {
  // 2 -> sink infinite: 2 is forced to the sink side; source -> 3 infinite:
  // 3 to the source side; 3 -> 2 (5) crosses every cut; 4 and 5 form one
  // component, 6 and 7 another.
  const std::vector<FlowArc> arcs{{2, 1, kInfinite}, {0, 3, kInfinite}, {3, 2, 5}, {0, 4, 2}, {4, 5, kInfinite},
                                  {5, 1, 1},         {3, 6, 4},         {6, 7, 3}, {7, 2, 9}};
  const pt::ContractedNetwork cn = pt::contract_network(8, arcs, 0, 1);
  REQUIRE(cn.feasible);
  CHECK(cn.side[2] == pt::ForcedSide::Sink);
  CHECK(cn.side[3] == pt::ForcedSide::Source);
  CHECK(cn.constant == 5);
  CHECK(cn.component_count() == 2);
  // Numbered by their first vertex; each lists the original arcs it keeps,
  // in order, and its vertices' local ids start at 2.
  CHECK(cn.vertices == std::vector<int32_t>{4, 5, 6, 7});
  CHECK(cn.arc_start == std::vector<int32_t>{0, 3, 6});
  CHECK(cn.arc_ids == std::vector<int32_t>{3, 4, 5, 6, 7, 8});
  CHECK(cn.local_vertex(4) == 2);
  CHECK(cn.local_vertex(7) == 3);
  CHECK(cn.local_vertex(3) == 0);
  CHECK(cn.local_vertex(2) == 1);
  const pt::MinCut cut = pt::solve_min_cut(8, arcs, 0, 1);
  CHECK(cut.value == 5 + 1 + 3);
  check_same(8, arcs);
}

TEST_CASE("an all-infinite path from source to sink is infeasible") {
  const std::vector<FlowArc> arcs{{0, 2, kInfinite}, {2, 3, kInfinite}, {3, 1, kInfinite}, {0, 1, 4}};
  CHECK_FALSE(pt::solve_min_cut(4, arcs, 0, 1).feasible);
  check_same(4, arcs);
}

TEST_CASE("random networks with capacities past 64 and 128 bits: the same cut as the reference") {
  // Scaled by 2^70 or 2^200, components solve in GMP integers; a network
  // mixing scaled and plain capacities solves some components in 64 bits
  // and some in GMP.
  std::mt19937 rng(99);
  for (int round = 0; round < 600; ++round) {
    const int32_t n = 2 + static_cast<int32_t>(rng() % 30);
    const int32_t m = static_cast<int32_t>(rng() % (3 * n + 1));
    const double scale = std::ldexp(1.0, round % 3 == 0 ? 0 : round % 3 == 1 ? 70 : 200);
    auto arcs = random_network(rng, n, m, scale);
    if (round % 2 == 0) {
      for (const FlowArc& a : random_network(rng, n, m)) arcs.push_back(a);
    }
    INFO("round " << round << ": " << n << " vertices, " << arcs.size() << " arcs, scale " << scale);
    check_same(n, arcs);
  }
}

TEST_CASE("capacities past 128 bits: the hand-computed cut") {
  // 0 = source, 1 = sink.
  // 2 -> 3 infinite, source -> 2 (2^200), 3 -> sink (2^200 + 2^150): the
  //   source arc is the cut; 3 -> sink keeps 2^150 of residual capacity, so
  //   2 and 3 reach the sink.
  // source -> 4 and 4 -> sink, both 2^130: a tie; PyTorch's rule puts 4 on
  //   the source side (4 -> sink is saturated).
  // source -> 5 (3), 5 -> sink (2): 5 on the source side.
  // source -> 6 (1), 6 -> sink (5): 6 reaches the sink.
  // source -> 7 -> sink and source -> 8 -> sink, all the largest double:
  //   the flow passes 2^1024, beyond any double.
  const double big = std::ldexp(1.0, 200);
  const double tie = std::ldexp(1.0, 130);
  const std::vector<FlowArc> arcs{{0, 2, big}, {2, 3, kInfinite}, {3, 1, big + std::ldexp(1.0, 150)},
                                  {0, 4, tie}, {4, 1, tie},       {0, 5, 3},
                                  {5, 1, 2},   {0, 6, 1},         {6, 1, 5},
                                  {0, 7, DBL_MAX}, {7, 1, DBL_MAX}, {0, 8, DBL_MAX},
                                  {8, 1, DBL_MAX}};
  const pt::MinCut cut = pt::solve_min_cut(9, arcs, 0, 1);
  REQUIRE(cut.feasible);
  const FlowValue want_value = power_of_two(200) + power_of_two(130) + 2 + 1 + 2 * FlowValue(DBL_MAX);
  CHECK(cut.value == want_value);
  CHECK(cut.value > power_of_two(1024));
  CHECK(pt::to_string(cut.value) == want_value.get_str());
  const pt::Flags want{false, true, true, true, false, false, true, false, false};
  CHECK(cut.sink_side == want);
  check_same(9, arcs);
}

TEST_CASE("every shipped flow network: the reference's value and sink side") {
  // PyTorch's own networks (partition_tool flow writes the same ones).
  std::vector<std::string> paths;
  for (const std::string dir : {"/corpus", "/corpus/scale"}) {
    for (const auto& entry : std::filesystem::directory_iterator(PT_TEST_DIR + dir)) {
      const std::string path = entry.path().string();
      if (path.ends_with(".flow.dimacs")) paths.push_back(path);
    }
  }
  std::sort(paths.begin(), paths.end());
  CHECK(paths.size() >= 5);
  for (const std::string& path : paths) {
    INFO(path);
    std::ifstream in(path);
    REQUIRE(in);
    const pt::DimacsNetwork net = pt::read_dimacs(in, path);
    const pt::MinCut got = pt::solve_min_cut(net.vertex_count, net.arcs, net.source, net.sink);
    REQUIRE(got.feasible);
    check_same(net.vertex_count, net.arcs, net.source, net.sink);
  }
}
