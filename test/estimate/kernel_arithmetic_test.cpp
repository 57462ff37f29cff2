// A fused kernel's arithmetic floor (estimate/kernel_arithmetic.h): a value
// inlined into a larger loop is computed once per element of that loop.
#include <doctest/doctest.h>

#include "estimate/bandwidth_model.h"
#include "report/graph_builder.h"

namespace {

using pt::test::GraphBuilder;

// One nanosecond per transcendental evaluation, and bytes that take no time
// to speak of: the kernel's time is its evaluations.
pt::Device arithmetic_device() {
  pt::Device d{"test", 1e18, 1e18, 1e18};
  d.erf_seconds = 1e-9;
  d.exp_seconds = 1e-9;
  return d;
}

double pass_seconds(const pt::Graph& g, bool floor) {
  pt::BandwidthOptions o;
  o.fused_compute_floor = floor;
  return pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, pt::OpClasses::pytorch_defaults(),
                           arithmetic_device(), o)
      .seconds;
}

}  // namespace

TEST_CASE("a broadcast cos is evaluated once per element of the loop that reads it") {
  // Rotary embeddings: cos of [T, D] positions times a [B, T, D] activation.
  GraphBuilder b;
  b.input("positions", {4, 16});
  b.input("q", {8, 4, 16});
  b.op("c", "aten.cos.default", {"positions"}, {4, 16}, "float32", {"pointwise"});
  b.op("rotated", "aten.mul.Tensor", {"q", "c"}, {8, 4, 16}, "float32", {"pointwise"});
  const pt::Graph g = b.build({"rotated"});
  const double s = pass_seconds(g, true);
  CHECK(s >= 8 * 4 * 16 * 1e-9);        // not the 64 evaluations of cos's own elements
  CHECK(s < 8 * 4 * 16 * 1e-9 * 1.1);
  CHECK(pass_seconds(g, false) < 1e-9);
}

TEST_CASE("an erf a reduction reads is evaluated once per element reduced, and an expression held twice once") {
  GraphBuilder b;
  b.input("x", {8, 32});
  b.op("e", "aten.erf.default", {"x"}, {8, 32}, "float32", {"pointwise"});
  b.op("e_again", "aten.erf.default", {"x"}, {8, 32}, "float32", {"pointwise"});
  b.op("both", "aten.add.Tensor", {"e", "e_again"}, {8, 32}, "float32", {"pointwise"});
  b.op("s", "aten.sum.dim_IntList", {"both"}, {8}, "float32", {"reduction"},
       "args { list { items { int: 1 } } }");
  const pt::Graph g = b.build({"s"});
  const double s = pass_seconds(g, true);
  CHECK(s >= 8 * 32 * 1e-9);
  CHECK(s < 8 * 32 * 1e-9 * 1.1);
}
