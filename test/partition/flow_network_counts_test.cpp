// FlowNetwork's counts (what the report prints as flow vertices and arcs)
// against a plain std::set, on random networks with repeated arcs: the
// linear distinct-arc count must agree with counting distinct pairs.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <set>
#include <utility>

#include "graph/graph_io.h"
#include "partition/flow_network.h"
#include "pipeline/pipeline.h"
#include "support/reference.h"

TEST_CASE("distinct_arc_count counts each (from, to) pair once") {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    pt::FlowNetwork net;
    net.vertex_count = 2 + static_cast<int32_t>(rng() % 40);
    std::uniform_int_distribution<int32_t> vertex(0, net.vertex_count - 1);
    std::set<std::pair<int32_t, int32_t>> pairs;
    const int arcs = static_cast<int>(rng() % 120);
    for (int k = 0; k < arcs; ++k) {
      const int32_t a = vertex(rng), b = vertex(rng);
      net.arcs.push_back({a, b, pt::Capacity{1}});
      pairs.insert({a, b});
    }
    CHECK(net.distinct_arc_count() == static_cast<int64_t>(pairs.size()));
  }
}

TEST_CASE("release_arcs frees the arcs and weights and keeps the counts and bans") {
  pt::FlowNetwork net;
  net.vertex_count = 6;
  // Vertex 5 carries no arc; (2, 3) is repeated.
  net.arcs = {{0, 2, pt::Capacity{1}}, {2, 3, pt::Capacity{4}}, {2, 3, pt::Capacity{2}}, {3, 1, pt::Capacity{1}},
              {4, 1, pt::Capacity{1}}};
  net.weight_arc = {1, -1};
  net.banned = {pt::BanReason::None, pt::BanReason::None};
  const int64_t used = net.used_vertex_count(), distinct = net.distinct_arc_count();
  REQUIRE(used == 5);
  REQUIRE(distinct == 4);
  CHECK_FALSE(net.arcs_released());
  net.release_arcs();
  CHECK(net.arcs_released());
  CHECK(net.arcs.empty());
  CHECK(net.weight_arc.empty());
  CHECK(net.banned.size() == 2);
  CHECK(net.used_vertex_count() == used);
  CHECK(net.distinct_arc_count() == distinct);
  net.release_arcs();  // a second call keeps the first counts
  CHECK(net.distinct_arc_count() == distinct);
}

namespace {

// The partition of a corpus graph under one setting (name=value).
pt::Partitioned partition_corpus(const char* model, const char* setting) {
  const std::string path = pt::test::corpus_graph_path(model);
  pt::Settings s;
  s.set_assignment(setting);
  const pt::LoadedGraph loaded = pt::load_graph_file(path, pt::format_from_path(path));
  return pt::partition_joint(loaded.graph, s);
}

}  // namespace

TEST_CASE("build_flow_network's arcs are distinct pairs, as arcs_distinct lets the count assume") {
  for (const char* model : {"linear_ce", "gpt2_dropout_l2", "resnet18", "gpt2_124m", "mlp_dynamic", "sac_mlp"}) {
    for (const char* setting : {"dist_from_bw_base=1.1", "ban_recompute_reductions=false",
                                "aggressive_recomputation=true", "recompute_views=true"}) {
      CAPTURE(model);
      CAPTURE(setting);
      pt::FlowNetwork net = partition_corpus(model, setting).result.solution.network;
      REQUIRE(net.arcs_distinct);
      REQUIRE(!net.arcs.empty());
      net.arcs_distinct = false;  // the general count
      CHECK(net.distinct_arc_count() == static_cast<int64_t>(net.arcs.size()));
    }
  }
}

TEST_CASE("build_flow_network sizes its arc block exactly") {
  // The block is freed before the report, whose allocations then reuse it:
  // room never written would be fresh pages there (10^6 nodes: 113 MB
  // reserved, 43 written).
  for (const char* model : {"linear_ce", "gpt2_124m", "sac_mlp", "mlp_dynamic"}) {
    for (const char* setting : {"dist_from_bw_base=1.1", "ban_recompute_used_far_apart=false",
                                "ban_recompute_long_fusible_chains=false", "recompute_views=true"}) {
      CAPTURE(model);
      CAPTURE(setting);
      const pt::Partitioned p = partition_corpus(model, setting);
      const pt::FlowNetwork& net = p.result.solution.network;
      REQUIRE(!net.arcs.empty());
      CHECK(net.arcs.capacity() == net.arcs.size());
    }
  }
}
