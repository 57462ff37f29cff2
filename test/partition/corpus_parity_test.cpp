// Parity with PyTorch 2.11 on the corpus, every recorded run (budget runs
// included), through the path the command line takes (load_graph_file, then
// partition_joint): the saved set, saved symbols, recomputed nodes, the
// backward's inputs, the forward's and the backward's nodes, and every
// solve's cut value equal what PyTorch recorded; for runs that recorded it,
// every node's capacity, ban reason, sink tie and dist_from_bw too.
//
// Node order: the forward's nodes are compared in order. The backward's are
// compared as sets, and in the order PyTorch runs them (its reordering to
// mimic the autograd engine, modelled by append_backward_order with
// from_first_tangent_reader), with the named known differences below.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "estimate/backward_order.h"
#include "pipeline/pipeline.h"
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

// The call_function nodes of a sub-graph, graph order, less its inputs
// (saved values are call_function nodes of the joint graph, placeholders
// of the backward): PyTorch's fw_nodes and bw_nodes list only those.
std::vector<NodeId> call_functions(const Graph& g, const Flags& keep, const std::vector<NodeId>& inputs = {}) {
  Flags input(static_cast<size_t>(g.size()), false);
  for (NodeId id : inputs) input[id] = true;
  std::vector<NodeId> out;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (keep[id] && !input[id] && g[id].op == OpKind::CallFunction) out.push_back(id);
  }
  return out;
}

std::vector<NodeId> backward_nodes(const Graph& g, const Extraction& e) {
  return call_functions(g, e.backward.keep, e.bw_inputs());
}

std::vector<NodeId> backward_run_order(const Graph& g, const Extraction& e) {
  Flags bw_input(static_cast<size_t>(g.size()), false);
  for (NodeId id : e.bw_inputs()) bw_input[id] = true;
  std::vector<NodeId> order;
  append_backward_order(g, e, bw_input, /*from_first_tangent_reader=*/true, order);
  std::vector<NodeId> out;
  for (NodeId id : order) {
    if (g[id].op == OpKind::CallFunction) out.push_back(id);
  }
  return out;
}

// Known difference: where the backward recomputes a multi-output op (the
// attention's statistics, batch norm's outputs), PyTorch's reordering
// places the op's getitem nodes at another position than the tool's model
// of it (append_backward_order); every node is there (the sets above are
// equal), in another order. The predicted peak depends on that order, the
// cut does not.
const std::set<std::string>& known_order_differences() {
  static const std::set<std::string> runs = {
      "gpt2_dropout_l2/aggressive", "gpt2_dropout_l2/budget_0.5", "gpt2_dropout_l2/budget_0.1",
      "resnet18/aggressive",        "resnet18/no_reduction_ban",  "resnet18/budget_0.5",
      "resnet18/budget_0.1",        "gpt2_124m/aggressive",       "gpt2_124m/budget_0.5",
      "gpt2_124m/budget_0.1"};
  return runs;
}

// Checks every run of `model` (or only `default` when !all_settings);
// returns how many were checked.
int check_model(const std::string& model, bool all_settings) {
  const auto ref = test::load_reference(test::corpus_path(model + ".ref.json"));
  const std::string path = test::corpus_graph_path(model);
  const LoadedGraph loaded = load_graph_file(path, format_from_path(path));
  int runs_checked = 0;
  for (const auto& run : ref.runs()) {
    if (!all_settings && run.config() != "default") continue;
    INFO("model " << model << ", run " << run.config());
    const Settings s = test::settings_of(run);
    const Partitioned p = partition_joint(loaded.graph, s);
    const Graph& g = p.prepared.graph;
    const PartitionResult& r = p.result;
    const Extraction& e = r.extraction;
    CHECK(names(g, e.fw_saved_outputs()) == strings(run.fw_saved_outputs()));
    CHECK(names(g, e.saved_sym_nodes) == strings(run.saved_sym_nodes()));
    CHECK(sorted(names(g, e.recomputed)) == sorted(strings(run.recomputed())));
    CHECK(names(g, e.bw_inputs()) == strings(run.bw_placeholders()));
    CHECK(names(g, call_functions(g, e.forward.keep)) == strings(run.fw_nodes()));
    CHECK(sorted(names(g, backward_nodes(g, e))) == sorted(strings(run.bw_nodes())));
    // The run order: exact, except in the named known differences below,
    // which must still differ (a fix of the order model shows up here).
    const bool order_differs = known_order_differences().count(model + "/" + run.config()) > 0;
    CHECK((names(g, backward_run_order(g, e)) == strings(run.bw_nodes())) == !order_differs);
    std::vector<FlowValue> want;
    for (const auto& solve : run.solves()) want.push_back(solve.cut_value());
    CHECK(r.cut_values == want);
    const bool budget_run = s.activation_memory_budget < 1;
    if (!budget_run) {
      // The budget's final solve runs under other ban options; its cut is
      // checked through the saved values above.
      CHECK(names(g, r.solution.cut.saved) == strings(run.chosen_saved_values()));
      REQUIRE(run.solves_size() >= 1);
      CHECK(r.solution.network.used_vertex_count() == run.solves(0).flow_nodes());
      CHECK(r.solution.network.distinct_arc_count() == run.solves(0).flow_edges());
    } else {
      CHECK(r.budget != nullptr);
    }
    if (run.flow_network_size() > 0) check_network(g, r.classification, r.solution.network, run);
    ++runs_checked;
  }
  return runs_checked;
}

}  // namespace

// Every model records ten runs: eight settings and two budgets.
TEST_CASE("parity: linear_ce, every run") { CHECK(check_model("linear_ce", true) == 10); }
TEST_CASE("parity: mlp_dynamic, every run") { CHECK(check_model("mlp_dynamic", true) == 10); }
TEST_CASE("parity: sac_mlp, every run") { CHECK(check_model("sac_mlp", true) == 10); }
TEST_CASE("parity: gpt2_dropout_l2, every run") { CHECK(check_model("gpt2_dropout_l2", true) == 10); }
TEST_CASE("parity: resnet18, every run") { CHECK(check_model("resnet18", true) == 10); }
TEST_CASE("parity: gpt2_124m, every run") { CHECK(check_model("gpt2_124m", true) == 10); }
TEST_CASE("parity: scale/gpt2_l24, default") { CHECK(check_model("scale/gpt2_l24", false) == 1); }
TEST_CASE("parity: scale/gpt2_l48, default") { CHECK(check_model("scale/gpt2_l48", false) == 1); }
TEST_CASE("parity: scale/gpt2_l96, default") { CHECK(check_model("scale/gpt2_l96", false) == 1); }
