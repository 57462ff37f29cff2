// Parity with PyTorch 2.11 on the corpus: for every model and every
// non-budget setting, the saved set, saved symbols, recomputed nodes,
// backward inputs and cut value equal what PyTorch recorded; for `default`
// and `dist_base_1.0`, every node's capacity, ban reason, sink tie and
// dist_from_bw too. Budget settings are checked in test/budget/.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analysis/classify.h"
#include "graph/graph_io.h"
#include "graph/validate.h"
#include "partition/partitioner.h"
#include "prepare/prepare.h"
#include "support/reference.h"

namespace {

using namespace pt;

std::vector<std::string> names(const Graph& g, const std::vector<NodeId>& ids) {
  std::vector<std::string> out;
  for (NodeId id : ids) out.emplace_back(g[id].name);
  return out;
}

template <class Repeated>
std::vector<std::string> strings(const Repeated& r) {
  return std::vector<std::string>(r.begin(), r.end());
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::string capacity_text(const std::optional<Capacity>& w) {
  if (!w) return "none";
  return *w == kInfinite ? "inf" : to_string(*w);
}

std::string capacity_text(const test::ref::FlowEntry& e) {
  if (!e.has_capacity()) return "none";
  if (e.capacity().has_string_value()) return e.capacity().string_value();
  return std::to_string(static_cast<int64_t>(e.capacity().number_value()));
}

std::string sink_text(SinkTie t) { return t == SinkTie::In ? "in" : t == SinkTie::Out ? "out" : ""; }

void check_network(const Graph& g, const Classification& c, const FlowNetwork& net, const test::ref::Run& run) {
  INFO("flow network of run " << run.config());
  CHECK(static_cast<size_t>(run.flow_network_size()) == static_cast<size_t>(g.size() - 1));
  for (NodeId id = 0; id + 1 < g.size(); ++id) {
    const auto it = run.flow_network().find(g[id].name);
    REQUIRE_MESSAGE(it != run.flow_network().end(), "node " << g[id].name << " missing from the reference");
    INFO("node " << g[id].name);
    CHECK(capacity_text(net.weight(id)) == capacity_text(it->second));
    CHECK(std::string(ban_reason_text(net.banned[id])) == it->second.banned());
    CHECK(sink_text(net.sink[id]) == it->second.sink());
  }
  CHECK(static_cast<size_t>(run.dist_from_bw_size()) > 0);
  for (const auto& entry : run.dist_from_bw()) {
    // Not a structured binding: clang 14 (the sanitizer build) cannot capture one in INFO's lambda.
    const std::string& name = entry.first;
    const auto dist = entry.second;
    const NodeId id = g.find(name);
    REQUIRE_MESSAGE(id != kNoNode, "dist_from_bw names unknown node " << name);
    INFO("node " << name);
    CHECK(c.dist_from_bw[id] == dist);
  }
}

void check_model(const std::string& model, bool all_settings) {
  const auto ref = test::load_reference(test::corpus_path(model + ".ref.json"));
  const std::string path = test::corpus_graph_path(model);
  const Graph joint = validate(read_graph(path, format_from_path(path)), path);
  int runs_checked = 0;
  for (const auto& run : ref.runs()) {
    if (run.config().rfind("budget", 0) == 0) continue;
    if (!all_settings && run.config() != "default") continue;
    INFO("model " << model << ", run " << run.config());
    const Settings s = test::settings_of(run);
    const PrepareResult prepared = prepare(joint, s);
    const Graph& g = prepared.graph;
    const PartitionResult r = partition_graph(g, s);
    const Extraction& e = r.extraction;
    CHECK(names(g, e.fw_saved_outputs()) == strings(run.fw_saved_outputs()));
    CHECK(names(g, r.solution.cut.saved) == strings(run.chosen_saved_values()));
    CHECK(names(g, e.saved_sym_nodes) == strings(run.saved_sym_nodes()));
    CHECK(sorted(names(g, e.recomputed)) == sorted(strings(run.recomputed())));
    CHECK(names(g, e.bw_inputs()) == strings(run.bw_placeholders()));
    REQUIRE(run.solves_size() >= 1);
    CHECK(r.solution.cut.value == run.solves(0).cut_value());
    CHECK(r.solution.network.used_vertex_count() == run.solves(0).flow_nodes());
    CHECK(r.solution.network.distinct_arc_count() == run.solves(0).flow_edges());
    if (run.flow_network_size() > 0) check_network(g, r.classification, r.solution.network, run);
    ++runs_checked;
  }
  CHECK(runs_checked == (all_settings ? 8 : 1));
}

}  // namespace

TEST_CASE("parity: linear_ce, all eight non-budget settings") { check_model("linear_ce", true); }
TEST_CASE("parity: mlp_dynamic, all eight non-budget settings") { check_model("mlp_dynamic", true); }
TEST_CASE("parity: sac_mlp, all eight non-budget settings") { check_model("sac_mlp", true); }
TEST_CASE("parity: gpt2_dropout_l2, all eight non-budget settings") { check_model("gpt2_dropout_l2", true); }
TEST_CASE("parity: resnet18, all eight non-budget settings") { check_model("resnet18", true); }
TEST_CASE("parity: gpt2_124m, all eight non-budget settings") { check_model("gpt2_124m", true); }
TEST_CASE("parity: scale/gpt2_l24, default") { check_model("scale/gpt2_l24", false); }
TEST_CASE("parity: scale/gpt2_l48, default") { check_model("scale/gpt2_l48", false); }
TEST_CASE("parity: scale/gpt2_l96, default") { check_model("scale/gpt2_l96", false); }
