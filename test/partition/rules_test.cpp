// Hand-written graphs for partitioning rules the corpus never exercises
// (docs/design.md section 3/4): a long fusible chain that gets cut, a gradient
// output computed from forward values (X_out -> sink), the too-far ban,
// symbol bindings, the default partition, and infeasible graphs.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "graph/errors.h"
#include "partition/partitioner.h"
#include "prepare/prepare.h"
#include "prepare/text_graph.h"

namespace {

using namespace pt;

// "name = packet(args)" lines -> pbtxt nodes with float32 [4] values.
std::string op(const std::string& name, const std::string& target, const std::vector<std::string>& args,
               const std::string& extra = "") {
  std::string out = "nodes { name: \"" + name + "\" op: \"call_function\" target: \"" + target + "\"";
  for (const auto& a : args) out += " args { node: \"" + a + "\" }";
  return out + " $T op_tags: \"pointwise\" " + extra + " }\n";
}

std::string placeholder(const std::string& name) {
  return "nodes { name: \"" + name + "\" op: \"placeholder\" target: \"" + name + "\" $T }\n";
}

std::string output(const std::vector<std::string>& values) {
  std::string out = "nodes { name: \"output\" op: \"output\" target: \"output\" args { list {";
  for (const auto& v : values) out += v == "-" ? " items { none: true }" : " items { node: \"" + v + "\" }";
  return out + " } } }\n";
}

struct Run {
  Graph g;
  PartitionResult r;
  std::vector<std::string> saved() const {
    std::vector<std::string> out;
    for (NodeId id : r.extraction.fw_saved_outputs()) out.emplace_back(g[id].name);
    return out;
  }
  BanReason ban(const std::string& name) const { return r.solution.network.banned[g.find(name)]; }
};

void check_same_subgraph(const Subgraph& a, const Subgraph& b) {
  CHECK(a.keep == b.keep);
  CHECK(a.is_input == b.is_input);
  CHECK(a.invalid_output == b.invalid_output);
}

// Every rule's graph is also partitioned with `threads` 2, whose extraction
// extracts the forward for the chosen values beside the first backward
// (kept where extraction drops nothing and binds no symbol, redone where it
// does: both happen below): the same extraction as one thread's.
Run partition_text(const std::string& text, const Settings& s = {}) {
  const Graph joint = test::graph_from_text(text);
  PrepareResult p = prepare(joint, s);
  Run run{std::move(p.graph), {}};
  run.r = partition_graph(run.g, s, 1);
  const PartitionResult two = partition_graph(run.g, s, 2);
  const Extraction& a = run.r.extraction;
  const Extraction& b = two.extraction;
  CHECK(b.saved_values == a.saved_values);
  CHECK(b.saved_sym_nodes == a.saved_sym_nodes);
  CHECK(b.dropped == a.dropped);
  CHECK(b.recomputed == a.recomputed);
  CHECK(b.grad_inputs == a.grad_inputs);
  check_same_subgraph(b.forward, a.forward);
  check_same_subgraph(b.backward, a.backward);
  // However extraction got there, its two graphs are the extractions for
  // its final lists.
  const Classification& c = run.r.classification;
  std::vector<NodeId> fw_outputs = c.fwd_outputs;
  for (NodeId id : a.fw_saved_outputs()) fw_outputs.push_back(id);
  check_same_subgraph(a.forward, extract_subgraph(run.g, c.inputs, fw_outputs, Pass::Forward));
  check_same_subgraph(a.backward, extract_subgraph(run.g, a.bw_inputs(), c.bwd_outputs, Pass::Backward));
  return run;
}

// A parameter x, a chain c1..c<n> of relu, loss = sum(c<n>), and a backward
// that reads c<n>: grad_x = tangents_1 * c<n>.
std::string chain_graph(int n, const std::string& extra_settings_comment = "") {
  std::string text = "num_fwd_outputs: 1 static_lifetime_input_indices: 0 " + extra_settings_comment + "\n";
  text += placeholder("x") + placeholder("tangents_1");
  std::string prev = "x";
  for (int i = 1; i <= n; ++i) {
    const std::string name = "c" + std::to_string(i);
    text += op(name, "aten.relu.default", {prev});
    prev = name;
  }
  text += op("loss", "aten.sum.default", {prev}, "op_tags: \"reduction\"");
  text += op("grad_x", "aten.mul.Tensor", {"tangents_1", prev});
  return text + output({"loss", "grad_x"});
}

}  // namespace

TEST_CASE("a fusible chain longer than 100 ops is cut: its far end is banned and the last value saved") {
  const Run on = partition_text(chain_graph(110));
  CHECK(on.ban("c102") == BanReason::LongFusibleChain);
  CHECK(on.saved() == std::vector<std::string>{"c110"});
  for (int i = 1; i <= 110; ++i) {
    if (i != 102) CHECK(on.ban("c" + std::to_string(i)) == BanReason::None);
  }

  Settings off;
  off.ban_recompute_long_fusible_chains = false;
  const Run free = partition_text(chain_graph(110), off);
  CHECK(free.ban("c102") == BanReason::None);
  CHECK(free.saved() == std::vector<std::string>{"x"});  // the free parameter; the chain is recomputed
  CHECK(free.r.extraction.recomputed.size() == 110);

  // 100 ops are not "long": nothing is banned.
  const Run short_chain = partition_text(chain_graph(100));
  CHECK(short_chain.saved() == std::vector<std::string>{"x"});
}

TEST_CASE("a gradient output computed from forward values is tied to the sink at its out half") {
  // grad_w = w * w does not depend on the tangent: required by the backward,
  // but recomputable there from w (a free parameter).
  std::string text = "num_fwd_outputs: 1 static_lifetime_input_indices: 0\n";
  text += placeholder("w") + placeholder("x") + placeholder("tangents_1");
  text += op("y", "aten.mul.Tensor", {"w", "x"});
  text += op("loss", "aten.sum.default", {"y"}, "op_tags: \"reduction\"");
  text += op("grad_x", "aten.mul.Tensor", {"tangents_1", "w"});
  text += op("grad_w", "aten.mul.Tensor", {"w", "w"});
  text += output({"loss", "grad_w", "grad_x"});
  const Run run = partition_text(text);
  const NodeId grad_w = run.g.find("grad_w");
  CHECK(run.r.classification.required_bw[grad_w]);
  CHECK_FALSE(run.r.classification.tangent_closure[grad_w]);
  CHECK(run.r.solution.network.sink[grad_w] == SinkTie::Out);
  CHECK(run.r.solution.network.weight(grad_w).has_value());  // it keeps its weight edge
  CHECK(run.saved() == std::vector<std::string>{"w"});
  CHECK(run.r.extraction.backward.keep[grad_w]);
}

TEST_CASE("max_dist_from_bw bans values too far from the backward") {
  Settings near;
  near.max_dist_from_bw = 2;
  const Run run = partition_text(chain_graph(4), near);
  // dist_from_bw: c4 = 1, c3 = 2, c2 = 3, c1 = 4.
  CHECK(run.r.classification.dist_from_bw[run.g.find("c2")] == 3);
  CHECK(run.ban("c1") == BanReason::TooFar);
  CHECK(run.ban("c2") == BanReason::TooFar);
  CHECK(run.ban("c3") == BanReason::None);
  CHECK(run.saved() == std::vector<std::string>{"c4"});

  const Run default_run = partition_text(chain_graph(4));
  CHECK(default_run.ban("c1") == BanReason::None);
  CHECK(default_run.saved() == std::vector<std::string>{"x"});
}

TEST_CASE("saved tensors with symbolic sizes bring the placeholders that bind their symbols") {
  const std::string dyn = R"(val { tensor { shape: [8, 4] stride: [4, 1] dtype: "float32" device: "cpu" shape_expr: ["s0", "4"] } })";
  std::string text = "num_fwd_outputs: 1\n";
  text += R"(nodes { name: "primals_1" op: "placeholder" target: "primals_1" val { sym { kind: "int" expr: "s0" hint: 8 } } })" "\n";
  text += "nodes { name: \"primals_2\" op: \"placeholder\" target: \"primals_2\" " + dyn + " }\n";
  text += "nodes { name: \"tangents_1\" op: \"placeholder\" target: \"tangents_1\" " + dyn + " }\n";
  text += "nodes { name: \"h\" op: \"call_function\" target: \"aten.mm.default\" args { node: \"primals_2\" } args { node: \"primals_2\" } " + dyn + " }\n";
  text += "nodes { name: \"y\" op: \"call_function\" target: \"aten.relu.default\" args { node: \"h\" } " + dyn + " op_tags: \"pointwise\" }\n";
  text += "nodes { name: \"g\" op: \"call_function\" target: \"aten.mul.Tensor\" args { node: \"tangents_1\" } args { node: \"y\" } " + dyn + " op_tags: \"pointwise\" }\n";
  text += output({"y", "-", "g"});
  const Run run = partition_text(text);
  // The cut saves y (a forward output, so materialized: banned), not the
  // symbol; the binding of y's symbol s0 is added.
  CHECK(run.saved() == std::vector<std::string>{"y", "primals_1"});
  REQUIRE(run.r.extraction.saved_sym_nodes.size() == 1);
  CHECK(run.g[run.r.extraction.saved_sym_nodes[0]].name == "primals_1");
}

TEST_CASE("with nothing read by the backward, the default partition is used") {
  std::string text = "num_fwd_outputs: 1\n";
  text += placeholder("x") + placeholder("buf");
  text += op("a", "aten.relu.default", {"x"}, "partitioner_tag: \"is_forward\"");
  text += op("m", "aten.copy_.default", {"buf", "a"}, "mutable: true partitioner_tag: \"is_forward\"");
  text += op("b", "aten.neg.default", {"a"}, "partitioner_tag: \"is_forward\"");
  text += output({"b"});
  const Run run = partition_text(text);
  CHECK(run.r.default_partition);
  // The mutating copy_ is impure, and b is read by the output node, which is
  // not a forward node: the default partition saves both (a and x have no
  // reader outside the forward). The backward reads neither, so extraction
  // drops them.
  REQUIRE(run.r.chosen.size() == 2);
  CHECK(run.g[run.r.chosen[0]].name == "m");
  CHECK(run.g[run.r.chosen[1]].name == "b");
  CHECK(run.saved().empty());
  CHECK(run.r.extraction.dropped.size() == 2);
  CHECK(run.r.extraction.forward.keep[run.g.find("m")]);
}

TEST_CASE("an unsaveable primal read by the backward is infeasible, with the chain in the message") {
  std::string text = "num_fwd_outputs: 1\n";
  text += R"(nodes { name: "state" op: "placeholder" target: "state" val { opaque: "ScriptObject" } })" "\n";
  text += placeholder("x") + placeholder("tangents_1");
  text += op("loss", "aten.sum.default", {"x"}, "op_tags: \"reduction\"");
  text += op("grad_x", "mylib.use_state.default", {"tangents_1", "state"});
  text += output({"loss", "-", "grad_x"});
  try {
    partition_text(text);
    FAIL("expected InfeasibleError");
  } catch (const InfeasibleError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("'state' cannot be recomputed (cannot recompute: primal input)") != std::string::npos);
    CHECK(msg.find("cannot be saved (its value is an opaque ScriptObject)") != std::string::npos);
    CHECK(msg.find("'grad_x' reads 'state'") != std::string::npos);
  }
}

TEST_CASE("opaque backward-state and script-object handles are saved at no cost; other opaque values cannot be") {
  // The same graph as above with the handle's type varied: node_weight
  // reads the type from the node's record.
  auto graph_with = [](const std::string& type) {
    std::string text = "num_fwd_outputs: 1\n";
    text += R"(nodes { name: "state" op: "placeholder" target: "state" val { opaque: ")" + type + R"(" } })" "\n";
    text += placeholder("x") + placeholder("tangents_1");
    text += op("loss", "aten.sum.default", {"x"}, "op_tags: \"reduction\"");
    text += op("grad_x", "mylib.use_state.default", {"tangents_1", "state"});
    return text + output({"loss", "-", "grad_x"});
  };
  for (const std::string type : {"torch._dynamo.BackwardState", "FakeScriptObject(Foo)"}) {
    CAPTURE(type);
    const Run run = partition_text(graph_with(type));
    const auto saved = run.saved();
    CHECK(std::find(saved.begin(), saved.end(), "state") != saved.end());
  }
  CHECK_THROWS_AS(partition_text(graph_with("Handle")), InfeasibleError);
}

TEST_CASE("a must-recompute node reading an unsaveable, banned value is infeasible") {
  std::string text = "num_fwd_outputs: 1\n";
  text += placeholder("x") + placeholder("tangents_1");
  text += R"(nodes { name: "pair" op: "call_function" target: "mylib.pair.default" args { node: "x" } val { tuple { items { $t } items { $t } } } })" "\n";
  text += R"(nodes { name: "first" op: "call_function" target: "operator.getitem" args { node: "pair" } args { int: 0 } $T })" "\n";
  text += op("r", "aten.mul.Tensor", {"first", "first"}, "recompute: \"MUST_RECOMPUTE\"");
  text += op("loss", "aten.sum.default", {"r"}, "op_tags: \"reduction\"");
  text += op("grad_x", "mylib.use_pair.default", {"tangents_1", "pair"});
  text += output({"loss", "grad_x"});
  CHECK_THROWS_AS(partition_text(text), InfeasibleError);
}
