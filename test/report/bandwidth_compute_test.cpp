// The bandwidth model's time per kernel beyond bytes: the fused kernels'
// arithmetic floor (BandwidthOptions::fused_compute_floor), FLOPs for every
// op with a formula, nodes the pass never runs (nothing it returns reads
// them), and where a recomputation runs when a saved forward node also read
// it (sibling_fusion.h).
#include <doctest/doctest.h>

#include "support/relative.h"

#include <string>
#include <vector>

#include "analysis/flop_formulas.h"
#include "estimate/bandwidth_model.h"
#include "report/graph_builder.h"

namespace {

using pt::BandwidthOptions;
using pt::Graph;
using pt::NodeId;
using pt::PassEstimate;
using pt::test::GraphBuilder;

// 1e12 B/s, 1e15 FLOP/s; erf 1 ns and exp 0.5 ns per element: arithmetic
// dominates any kernel here that computes one.
const pt::Device kDevice{"test", 1e12, 1e15, 1e15, 1, 1, 1e-9, 0.5e-9};

// `inputs`: the nodes the pass loads (placeholders always).
PassEstimate estimate(const Graph& g, const std::vector<std::string>& inputs = {}, const BandwidthOptions& o = {},
                      const std::vector<NodeId>& recomputed = {}, const pt::Device& device = kDevice) {
  return pt::estimate_pass(g, pt::test::whole_pass(g, inputs), g.outputs, pt::OpClasses::pytorch_defaults(), device,
                           o, recomputed);
}

BandwidthOptions bytes_only() {
  BandwidthOptions o;
  o.fused_compute_floor = false;
  return o;
}

}  // namespace

TEST_CASE("a fused kernel takes at least its erf and exp arithmetic") {
  GraphBuilder b;
  b.input("x", {1000});
  b.op("e", "aten.erf.default", {"x"}, {1000});
  b.op("p", "aten.exp.default", {"e"}, {1000});
  b.op("m", "aten.mul.Tensor", {"p", "x"}, {1000});
  const Graph g = b.build({"m"});
  const PassEstimate p = estimate(g);
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.seconds == pt::test::relative(1000 * 1.5e-9));
  CHECK(p.bytes() == 8000);  // the floor changes time, not traffic
  SUBCASE("fused_compute_floor off: bytes only") {
    CHECK(estimate(g, {}, bytes_only()).seconds == pt::test::relative(8000 / 1e12));
  }
  SUBCASE("a device without measured costs: bytes only") {
    const pt::Device plain{"plain", 1e12, 1e15, 1e15};
    CHECK(estimate(g, {}, {}, {}, plain).seconds == pt::test::relative(8000 / 1e12));
  }
}

// erf(x * c1) + erf(x * c2), one fused kernel.
static Graph two_erfs(const std::string& c1, const std::string& c2) {
  GraphBuilder b;
  b.input("x", {1000});
  b.op("a1", "aten.mul.Tensor", {"x"}, {1000}, "float32", {}, "args { float: " + c1 + " }");
  b.op("e1", "aten.erf.default", {"a1"}, {1000});
  b.op("a2", "aten.mul.Tensor", {"x"}, {1000}, "float32", {}, "args { float: " + c2 + " }");
  b.op("e2", "aten.erf.default", {"a2"}, {1000});
  b.op("s", "aten.add.Tensor", {"e1", "e2"}, {1000});
  return b.build({"s"});
}

TEST_CASE("an expression a kernel holds twice is computed once") {
  // The recomputed GELU and the GELU backward each compute erf(x * 0.5):
  // two nodes of one value, which a compiler computes once in one kernel.
  const PassEstimate once = estimate(two_erfs("0.5", "0.5"));
  REQUIRE(once.kernels.size() == 1);
  CHECK(once.seconds == pt::test::relative(1000 * 1e-9));
  // Different constants: different expressions.
  CHECK(estimate(two_erfs("0.5", "0.25")).seconds == pt::test::relative(2000 * 1e-9));
}

TEST_CASE("every op with a FLOP formula costs its FLOPs, not only PyTorch's compute-intensive set") {
  // cuDNN attention is outside the partitioner's compute-intensive list.
  GraphBuilder b;
  b.input("q", {1, 2, 64, 32});
  b.input("k", {1, 2, 64, 32});
  b.input("v", {1, 2, 64, 32});
  b.op("att", "aten._scaled_dot_product_cudnn_attention.default", {"q", "k", "v"}, {1, 2, 64, 32});
  const PassEstimate p = estimate(b.build({"att"}));
  REQUIRE(p.kernels.size() == 1);
  const uint64_t expected = pt::flops::sdpa({1, 2, 64, 32}, {1, 2, 64, 32}, {1, 2, 64, 32});
  CHECK(expected > 0);
  CHECK(p.flops == expected);
  CHECK(p.seconds == pt::test::relative(std::max(4.0 * 16384 / 1e12, static_cast<double>(expected) / 1e15)));
}

TEST_CASE("nodes nothing the pass returns reads do not run") {
  // An op whose results the pass loads (its getitems were saved) is in the
  // extracted backward but never runs there; neither does an unread matmul.
  GraphBuilder b;
  b.input("x", {10, 10});
  b.input("w", {10, 10});
  b.op("pair", "aten.mm.default", {"x", "w"}, {10, 10});
  b.op("item", "aten.relu.default", {"pair"}, {10, 10});
  b.op("unread", "aten.mm.default", {"x", "w"}, {10, 10});
  b.op("out", "aten.neg.default", {"item"}, {10, 10});
  const Graph g = b.build({"out"});
  const PassEstimate p = estimate(g, {"item"});
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.flops == 0);
  CHECK(p.bytes_loaded == 400);
  CHECK(p.bytes_stored == 400);
  const PassEstimate all = estimate(g);  // item computed here: pair runs
  CHECK(all.flops == 2 * 10 * 10 * 10);
}

TEST_CASE("a recomputation runs before its first reader the pass computes, not a saved forward node that read it") {
  // r = relu(h) is recomputed for a matmul 300 nodes later, next to d, which
  // reads h too. `fwd`, a forward matmul that read r and whose output the
  // backward loads, is no reader in the backward: r still runs next to d and
  // the two kernels load h once.
  GraphBuilder b;
  b.input("h", {10, 100});
  b.input("g", {10, 100});
  b.input("w", {100, 10});
  b.input("z", {4});
  b.op("r", "aten.relu.default", {"h"}, {10, 100});
  b.op("fwd", "aten.mm.default", {"r", "w"}, {10, 10});
  std::string last = "z";
  for (int i = 0; i < 300; ++i) {
    const std::string name = "c" + std::to_string(i);
    b.op(name, "aten.neg.default", {last}, {4});
    last = name;
  }
  b.op("mm", "aten.mm.default", {"r", "w"}, {10, 10});
  b.op("d", "aten.mul.Tensor", {"g", "h"}, {10, 100});
  b.op("t", "aten.add.Tensor", {"fwd", "mm"}, {10, 10});
  const Graph g = b.build({"t", "d", last});
  BandwidthOptions apart;
  apart.merge_sibling_kernels = false;
  const std::vector<NodeId> recomputed{g.find("r")};
  const PassEstimate merged = estimate(g, {"fwd"}, {}, recomputed);
  const PassEstimate separate = estimate(g, {"fwd"}, apart, recomputed);
  CHECK(merged.bytes_loaded == separate.bytes_loaded - 4000);
}

TEST_CASE("a row read again right after its reduction comes from the cache") {
  // softmax over rows of 1000 floats (4000 B): max, then exp and sum, then
  // the division reads x again with both results.
  GraphBuilder b;
  b.input("x", {100, 1000});
  b.op("m", "aten.amax.default", {"x"}, {100, 1}, "float32", {"reduction"});
  b.op("d", "aten.sub.Tensor", {"x", "m"}, {100, 1000});
  b.op("s", "aten.sum.dim_IntList", {"d"}, {100, 1}, "float32", {"reduction"});
  b.op("q", "aten.div.Tensor", {"d", "s"}, {100, 1000});
  const Graph g = b.build({"q"});
  BandwidthOptions o = bytes_only();
  auto with_rows = [&](uint64_t row_bytes, const BandwidthOptions& opts) {
    pt::Device d{"test", 1e12, 1e15, 1e15};
    d.cached_row_bytes = row_bytes;
    return estimate(g, {}, opts, {}, d);
  };
  const PassEstimate dram = with_rows(0, o);
  const PassEstimate cached = with_rows(4000, o);
  REQUIRE(dram.kernels.size() == 3);
  // x is loaded three times (max, sum, division): traffic unchanged, the
  // second and third reads take no time; so does the division's read of the
  // max (400 B), which the sum's kernel read just before.
  CHECK(cached.bytes_loaded == dram.bytes_loaded);
  CHECK(cached.bytes_cached == 2 * 400000 + 400);
  CHECK(dram.bytes_cached == 0);
  CHECK(cached.seconds == pt::test::relative(dram.seconds - (2 * 400000 + 400) / 1e12));
  SUBCASE("rows larger than the device's limit are read from memory") {
    CHECK(with_rows(3999, o).bytes_cached == 400);
  }
  SUBCASE("cached_row_rereads off") {
    o.cached_row_rereads = false;
    CHECK(with_rows(4000, o).bytes_cached == 0);
  }
}

// amax, then sum(exp(x - amax)) over rows of `cols` floats.
static Graph softmax_statistics(int64_t cols) {
  GraphBuilder b;
  b.input("x", {10, cols});
  b.op("m", "aten.amax.default", {"x"}, {10, 1}, "float32", {"reduction"});
  b.op("d", "aten.sub.Tensor", {"x", "m"}, {10, cols});
  b.op("e", "aten.exp.default", {"d"}, {10, cols});
  b.op("s", "aten.sum.dim_IntList", {"e"}, {10, 1}, "float32", {"reduction"});
  return b.build({"s"});
}

TEST_CASE("an online softmax over long rows costs two exps per element") {
  // kDevice: exp 0.5 ns per element; the arithmetic dominates both kernels'
  // bytes. Rows over 1024 elements: Inductor's looped online softmax
  // rescales its running sum with a second exp at every element.
  const PassEstimate long_rows = estimate(softmax_statistics(2048));
  REQUIRE(long_rows.kernels.size() == 2);
  CHECK(long_rows.kernels[1].seconds == pt::test::relative(10 * 2048 * 2 * 0.5e-9));
  const PassEstimate short_rows = estimate(softmax_statistics(1024));
  REQUIRE(short_rows.kernels.size() == 2);
  CHECK(short_rows.kernels[1].seconds == pt::test::relative(10 * 1024 * 0.5e-9));
}
