#include <doctest/doctest.h>

#include "prepare/dead_code.h"
#include "prepare/prepare.h"
#include "prepare/text_graph.h"

using pt::test::graph_from_text;
using pt::test::node_names;

namespace {

// Unused: primals_2 (placeholder, kept), the get_attr, a pure chain
// (neg -> exp), and three impure ops that must survive: a mutating copy_, a
// side-effect function and an exporter-marked impure op. (Which ops count as
// impure is validation's call, Node::impure; DCE only reads it.)
const char* kDeadCode = R"(
  $P(primals_1)
  $P(primals_2)
  nodes { name: "_tensor_constant0" op: "get_attr" target: "_tensor_constant0" $T }
  nodes { name: "neg" op: "call_function" target: "aten.neg.default" args { node: "primals_1" } $T }
  nodes { name: "exp" op: "call_function" target: "aten.exp.default" args { node: "neg" } $T }
  nodes { name: "copy_" op: "call_function" target: "aten.copy_.default" mutable: true
          args { node: "primals_1" } args { node: "primals_1" } $T }
  nodes { name: "assert" op: "call_function" target: "aten._assert_scalar.default"
          args { bool: true } args { str: "msg" } val { none: true } }
  nodes { name: "marked" op: "call_function" target: "custom.log_value.default" impure: true
          args { node: "primals_1" } val { none: true } }
  nodes { name: "relu" op: "call_function" target: "aten.relu.default" args { node: "primals_1" } $T }
  nodes { name: "output" op: "output" args { list { items { node: "relu" } } } }
  num_fwd_outputs: 1
)";

}  // namespace

TEST_CASE("dead-code elimination keeps impure nodes and unused placeholders, drops unused get_attr") {
  const pt::Graph g = graph_from_text(kDeadCode);
  const pt::PrepareResult r = pt::prepare(g, pt::Settings{});
  CHECK(r.dead == std::vector<std::string>{"_tensor_constant0", "neg", "exp"});
  CHECK(node_names(r.graph) == std::vector<std::string>{"primals_1", "primals_2", "copy_", "assert",
                                                        "marked", "relu", "output"});
}

TEST_CASE("dead-code elimination on a sub-graph: absent users keep nothing alive") {
  const pt::Graph g = graph_from_text(kDeadCode);
  pt::Flags present(g.size(), true);
  pt::Flags roots(g.size(), false);
  present[g.find("exp")] = false;  // exp is not part of this sub-graph
  roots[g.find("relu")] = true;
  const pt::Flags live = pt::live_nodes(g, present, roots);
  CHECK(live[g.find("relu")]);
  CHECK(live[g.find("primals_1")]);
  CHECK_FALSE(live[g.find("neg")]);
  CHECK_FALSE(live[g.find("exp")]);
  CHECK_FALSE(live[g.find("copy_")]);  // impure, but not a root here: the caller decides
  CHECK_FALSE(live[g.find("primals_2")]);
}

TEST_CASE("live_from_roots needs no topological order") {
  // 3 -> 0 -> 2 -> 1 (users), root 1; 4 is unused.
  const std::vector<std::vector<pt::NodeId>> users{{2}, {}, {1}, {0}, {}};
  const pt::Flags live = pt::live_from_roots(users, {false, true, false, false, false});
  CHECK(live == pt::Flags{true, true, true, true, false});
}
