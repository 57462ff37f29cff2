#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "estimate/inductor_padding.h"
#include "estimate/pass_simulation.h"
#include "analysis/node_op_classes.h"
#include "prepare/text_graph.h"

using namespace pt;

namespace {

std::string tensor(const std::string& shape, const std::string& stride, const std::string& dtype = "bfloat16") {
  return "val { tensor { shape: " + shape + " stride: " + stride + " dtype: \"" + dtype + "\" device: \"cuda:0\" } }";
}

// BERT's logits gradient: g = relu(x) [8192, `cols`] bfloat16, padded
// (constant_pad_nd's `padding`) for `reader`, a matmul.
Graph padded_gradient(const std::vector<int>& padding = {0, 6, 0, 0}, const std::string& reader = "aten.mm.default",
                      const std::string& cols = "30522") {
  const std::string in = tensor("[8192, " + cols + "]", "[" + cols + ", 1]");
  std::string pad;
  for (int v : padding) pad += "items { int: " + std::to_string(v) + " } ";
  return test::graph_from_text(R"(
num_fwd_outputs: 1
nodes { name: "x" op: "placeholder" target: "x" )" + in + R"( }
nodes { name: "w" op: "placeholder" target: "w" )" + tensor("[30528, 768]", "[768, 1]") + R"( }
nodes { name: "g" op: "call_function" target: "aten.relu.default" args { node: "x" } )" + in + R"( op_tags: "pointwise" }
nodes { name: "p" op: "call_function" target: "aten.constant_pad_nd.default" args { node: "g" }
        args { list { )" + pad + R"(} } )" + tensor("[8192, 30528]", "[30528, 1]") + R"( }
nodes { name: "r" op: "call_function" target: ")" + reader + R"(" args { node: "p" } args { node: "w" } )" +
                              tensor("[8192, 768]", "[768, 1]") + R"( }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "r" } } } }
)");
}

}  // namespace

TEST_CASE("a buffer's storage follows Inductor's comprehensive padding") {
  const Graph g = padded_gradient();
  // 30522 elements a row (> 1024, no multiple of 64 bfloat16) round up to
  // 30528: 1 + 8191 x 30528 + 30521 elements.
  CHECK(padded_storage_bytes(g, g.find("g")) == uint64_t{2} * (1 + 8191ull * 30528 + 30521));
  // Padded in place by p, the buffer has p's sizes: 8192 full rows, the
  // padded logits' size (the reuse key Inductor compares).
  CHECK(padded_storage_bytes(g, g.find("g"), g.find("p")) == uint64_t{2} * 8192 * 30528);
  // Rows of 768 (a multiple of 64) and short rows are not padded.
  CHECK(padded_storage_bytes(g, g.find("r")) == g[g.find("r")].size_bytes);
  const Graph short_rows = padded_gradient({0, 6, 0, 0}, "aten.mm.default", "1000");
  CHECK(padded_storage_bytes(short_rows, short_rows.find("g")) == short_rows[short_rows.find("g")].size_bytes);
}

TEST_CASE("a matmul's pad of a buffer with room in its rows is Inductor's in-place padding") {
  const Graph g = padded_gradient();
  CHECK(pads_in_place(g, g.find("p")));
  CHECK_FALSE(pads_in_place(g, g.find("g")));  // no pad
  // Read by anything but a matmul, the pad is fused into its reader.
  const Graph summed = padded_gradient({0, 6, 0, 0}, "aten.add.Tensor");
  CHECK_FALSE(pads_in_place(summed, summed.find("p")));
  // Padding rows (or the left of a row) is not done in place.
  const Graph rows = padded_gradient({0, 0, 0, 6});
  CHECK_FALSE(pads_in_place(rows, rows.find("p")));
  // Rows of 30528 need no padding, so there is no room to pad into.
  const Graph aligned = padded_gradient({0, 6, 0, 0}, "aten.mm.default", "30528");
  CHECK_FALSE(pads_in_place(aligned, aligned.find("p")));
}

TEST_CASE("a padded buffer is no buffer of its value's size for the reuse key: an input keeps its unpadded layout") {
  // x (an input, as a backward's tangent) and g = relu(x) have one size and
  // dtype; g, computed and not returned, is allocated 30528 wide. Written
  // in place it would have needed x's storage to be g's (OPT's logits
  // gradient and the logits' tangent: Inductor allocated the gradient).
  const Graph g = padded_gradient();
  const NodeOpClasses ops(g, OpClasses::pytorch_defaults());
  const PassSimulation sim{g, ops};
  Flags padded(static_cast<size_t>(g.size()), false);
  const NodeId x = g.find("x"), grad = g.find("g");
  CHECK(sim.same_buffer(x, grad, {}, {}));  // without padded layouts: equal sizes
  padded[grad] = true;
  CHECK_FALSE(sim.same_buffer(x, grad, padded, {}));
  padded[x] = true;  // both computed and padded: one storage size
  CHECK(sim.same_buffer(x, grad, padded, {}));
}
