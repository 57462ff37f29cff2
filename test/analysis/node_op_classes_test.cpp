// NodeOpClasses (one byte per node, looked up once per packet string) must
// answer exactly what OpClasses answers for every node, also after a
// settings edit moves a packet between classes.
#include <doctest/doctest.h>

#include <string>

#include "analysis/node_op_classes.h"
#include "graph/graph_io.h"
#include "graph/validate.h"
#include "support/reference.h"

namespace {

void check_every_node(const pt::Graph& g, const pt::OpClasses& ops) {
  const pt::NodeOpClasses node_ops(g, ops);
  for (pt::NodeId id = 0; id < g.size(); ++id) {
    CAPTURE(g[id].name);
    CHECK(node_ops.is_view(id) == ops.is_view(g[id]));
    CHECK(node_ops.is_fusible_op(id) == ops.is_fusible_op(g[id]));
    CHECK(node_ops.is_compute_intensive(id) == ops.is_compute_intensive(g[id]));
    CHECK(node_ops.is_recomputable(id) == ops.is_recomputable(g[id]));
    CHECK(node_ops.is_random(id) == ops.is_random(g[id]));
    // Every user edge (aten.cat readers included), as the weights and bans ask.
    for (pt::NodeId u : g.users[id]) CHECK(node_ops.is_fusible(id, u) == ops.is_fusible(g[id], g[u]));
  }
}

}  // namespace

TEST_CASE("NodeOpClasses agrees with OpClasses on every node of gpt2_124m") {
  const std::string path = pt::test::corpus_graph_path("gpt2_124m");
  const pt::Graph g = pt::validate(pt::read_graph(path, pt::format_from_path(path)), path);
  pt::OpClasses ops = pt::OpClasses::pytorch_defaults();
  check_every_node(g, ops);
  ops.view.erase("aten.view");
  ops.random.insert("aten.mm");
  ops.compute_intensive.erase("aten.mm");
  ops.recomputable.erase("aten.mul");
  ops.recomputable.insert("aten.bmm");
  check_every_node(g, ops);
}
