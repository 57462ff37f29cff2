// The contracted, component-wise min-cut solver against the plain reference
// (preflow_reference.h: LEMON Preflow on the whole network, then the reverse
// residual search from the sink, what the partitioner did before
// contraction). On thousands of random networks, with many infinite arcs,
// ties and disconnected parts, the flow value, the feasibility and the sink
// side must be identical.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "partition/cut_contraction.h"
#include "partition/min_cut.h"
#include "partition/preflow_reference.h"

namespace {

using pt::FlowArc;
using pt::kInfinite;

// A random network: mostly sparse forward arcs (as a DAG of graph nodes
// gives), some backward ones, source and sink arcs, about a fifth infinite,
// capacities small enough to create many equal cuts.
std::vector<FlowArc> random_network(std::mt19937& rng, int32_t n, int32_t arcs) {
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
    out.push_back({a, b, percent(rng) < 20 ? kInfinite : pt::Capacity{capacity(rng)}});
  }
  return out;
}

// Also solved with `threads` 2, which splits the components between two
// threads for any network: the same cut.
void check_same(int32_t n, const std::vector<FlowArc>& arcs) {
  const pt::ReferenceCut want = pt::preflow_reference_cut(n, arcs, 0, 1);
  for (unsigned threads : {1u, 2u}) {
    INFO("threads " << threads);
    const pt::MinCut got = pt::solve_min_cut(n, arcs, 0, 1, threads);
    REQUIRE(got.feasible == want.feasible);
    if (!want.feasible) return;
    CHECK(got.value == want.value);
    CHECK(got.sink_side == want.sink_side);
  }
}

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

TEST_CASE("StoredCapacity keeps every 128-bit capacity, and a FlowArc is 24 bytes") {
  using pt::Capacity;
  const Capacity max = static_cast<Capacity>(~static_cast<unsigned __int128>(0) >> 1);
  std::vector<Capacity> values{0, 1, kInfinite, pt::kMaxWeight, pt::kMaxWeight - 1, Capacity{1} << 64,
                               (Capacity{1} << 64) - 1, -(Capacity{1} << 64), max, -max - 1, Capacity{123456789} << 70};
  std::mt19937_64 rng(7);
  for (int k = 0; k < 1000; ++k) {
    values.push_back(static_cast<Capacity>((static_cast<unsigned __int128>(rng()) << 64) | rng()));
  }
  for (const Capacity v : values) {
    const FlowArc a{3, 4, v};
    CHECK(Capacity{a.capacity} == v);
    CHECK((a.capacity == kInfinite) == (v == kInfinite));
  }
  CHECK(sizeof(FlowArc) == 24);
}
