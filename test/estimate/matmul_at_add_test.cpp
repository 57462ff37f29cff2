#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/node_op_classes.h"
#include "estimate/matmul_at_add.h"
#include "prepare/text_graph.h"
#include "settings/settings.h"

using namespace pt;

namespace {

std::string tensor(const std::string& shape, const std::string& stride, const std::string& dtype = "bfloat16") {
  return "val { tensor { shape: " + shape + " stride: " + stride + " dtype: \"" + dtype + "\" device: \"cuda:0\" } }";
}

struct Variant {
  std::string c_dtype = "bfloat16";  // the add's other operand
  std::string c_shape = "[2, 2]";
  std::string c_stride = "[2, 1]";
  bool pointwise_reader = false;     // neg(s) is what the graph returns
  bool alpha = false;                // s = add(m, r, alpha=2)
  bool second_mm_reader = false;     // m is also returned
};

// m = mm(a, b) is computed before r = relu(c); s = add(m, r).
std::string graph_text(const Variant& v) {
  const std::string t22 = tensor("[2, 2]", "[2, 1]");
  std::string text = R"(
num_fwd_outputs: 1
nodes { name: "a" op: "placeholder" target: "a" )" + tensor("[2, 3]", "[3, 1]") + R"( }
nodes { name: "b" op: "placeholder" target: "b" )" + tensor("[3, 2]", "[2, 1]") + R"( }
nodes { name: "c" op: "placeholder" target: "c" )" + tensor(v.c_shape, v.c_stride, v.c_dtype) + R"( }
nodes { name: "m" op: "call_function" target: "aten.mm.default" args { node: "a" } args { node: "b" } )" + t22 + R"( }
nodes { name: "r" op: "call_function" target: "aten.relu.default" args { node: "c" } )" +
                     tensor(v.c_shape, v.c_stride, v.c_dtype) + R"( op_tags: "pointwise" }
nodes { name: "s" op: "call_function" target: "aten.add.Tensor" args { node: "m" } args { node: "r" } )" +
                     (v.alpha ? R"(kwargs { key: "alpha" value { int: 2 } } )" : "") + t22 + R"( op_tags: "pointwise" }
)";
  std::string out = "s";
  if (v.pointwise_reader) {
    text += R"(nodes { name: "n" op: "call_function" target: "aten.neg.default" args { node: "s" } )" + t22 +
            R"( op_tags: "pointwise" }
)";
    out = "n";
  }
  text += R"(nodes { name: "output" op: "output" target: "output" args { list { items { node: ")" + out + "\" }" +
          (v.second_mm_reader ? R"( items { node: "m" })" : "") + " } } }\n";
  return text;
}

// The order after run_matmuls_at_their_adds, by name; the graph returns
// what `kept` marks.
std::vector<std::string> order_names(const Variant& v) {
  const Graph g = test::graph_from_text(graph_text(v));
  const Settings s;
  const NodeOpClasses ops(g, s.op_classes);
  std::vector<NodeId> order;
  Flags kept(static_cast<size_t>(g.size()), false);
  for (NodeId id = 0; id < g.output_node(); ++id) order.push_back(id);
  for (NodeId id : g.outputs) {
    if (id != kNoNode) kept[id] = true;
  }
  run_matmuls_at_their_adds(g, ops, kept, order);
  std::vector<std::string> names;
  for (NodeId id : order) names.emplace_back(g[id].name);
  return names;
}

const std::vector<std::string> kInPlace = {"a", "b", "c", "m", "r", "s"};
const std::vector<std::string> kAtAdd = {"a", "b", "c", "r", "m", "s"};

}  // namespace

TEST_CASE("a matmul whose only reader is an add runs at the add, as Inductor's addmm") {
  CHECK(order_names({}) == kAtAdd);
  // The other operand may broadcast to the matmul's shape (a bias).
  Variant bias;
  bias.c_shape = "[2]";
  bias.c_stride = "[1]";
  CHECK(order_names(bias) == kAtAdd);
}

TEST_CASE("a matmul stays where it is when Inductor keeps the add apart") {
  Variant v;
  v.pointwise_reader = true;  // should_prefer_unfused_addmm: the add fuses into its pointwise reader
  CHECK(order_names(v) == std::vector<std::string>{"a", "b", "c", "m", "r", "s", "n"});
  v = {};
  v.c_dtype = "float32";  // addmm takes one dtype
  CHECK(order_names(v) == kInPlace);
  v = {};
  v.alpha = true;  // the pattern is a plain add
  CHECK(order_names(v) == kInPlace);
  v = {};
  v.second_mm_reader = true;  // the matmul has another reader
  CHECK(order_names(v) == kInPlace);
  v = {};
  v.c_shape = "[2, 2, 2]";  // not expandable to [2, 2]
  v.c_stride = "[4, 2, 1]";
  CHECK(order_names(v) == kInPlace);
}
