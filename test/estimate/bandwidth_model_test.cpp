// The bandwidth model on hand-written graphs (each rule of docs/design.md section
// 6 on its own, and sibling_fusion.h's horizontal fusion) and on linear_ce with exact byte counts for both cuts.
#include <doctest/doctest.h>

#include "support/relative.h"

#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "estimate/bandwidth_model.h"
#include "report/graph_builder.h"

namespace {

using pt::BandwidthOptions;
using pt::Graph;
using pt::PassEstimate;
using pt::test::GraphBuilder;

const pt::Device kDevice{"test", 1e12, 1e15, 1e15};

// The whole graph as one pass: placeholders are its inputs, the output node's
// list its outputs.
PassEstimate estimate_all(const Graph& g, const BandwidthOptions& o = {}, const std::vector<pt::NodeId>& recomputed = {}) {
  return pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, pt::OpClasses::pytorch_defaults(), kDevice, o, recomputed);
}

BandwidthOptions without_merging() {
  BandwidthOptions o;
  o.merge_sibling_kernels = false;
  return o;
}

// h: a saved activation (4000 bytes) that a recomputation (relu, stored for a
// matmul) and a backward op (mul with the gradient g) both read.
GraphBuilder recompute_and_backward(int unrelated_nodes_between) {
  GraphBuilder b;
  b.input("h", {10, 100});
  b.input("g", {10, 100});
  b.input("w", {100, 10});
  b.input("z", {4});
  b.op("r", "aten.relu.default", {"h"}, {10, 100});
  std::string last = "z";
  for (int i = 0; i < unrelated_nodes_between; ++i) {
    const std::string name = "c" + std::to_string(i);
    b.op(name, "aten.neg.default", {last}, {4});
    last = name;
  }
  b.op("mm", "aten.mm.default", {"r", "w"}, {10, 10});
  b.op("d", "aten.mul.Tensor", {"g", "h"}, {10, 100});
  return b;
}

}  // namespace

TEST_CASE("a pointwise chain is one kernel: one load, one store") {
  GraphBuilder b;
  b.input("x", {1000});
  b.op("r", "aten.relu.default", {"x"}, {1000});
  b.op("m", "aten.mul.Tensor", {"r", "x"}, {1000});
  const PassEstimate p = estimate_all(b.build({"m"}));
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.bytes_loaded == 4000);
  CHECK(p.bytes_stored == 4000);
  CHECK(p.flops == 0);
  CHECK(p.seconds == pt::test::relative(8000 / 1e12));
}

TEST_CASE("a device's measured efficiencies scale its peaks unless apply_device_efficiency is off") {
  GraphBuilder b;
  b.input("a", {8, 16});
  b.input("w", {16, 4});
  b.op("mm", "aten.mm.default", {"a", "w"}, {8, 4});
  const Graph g = b.build({"mm"});
  const pt::Subgraph pass = pt::test::whole_pass(g);
  const pt::Device slow_memory{"m", 1e3, 1e15, 1e15, 0.5, 1};
  const pt::Device slow_matmul{"f", 1e15, 1e3, 1e3, 1, 0.25};
  const auto ops = pt::OpClasses::pytorch_defaults();
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, slow_memory).seconds == pt::test::relative((512 + 256 + 128) / 500.0));
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, slow_matmul).seconds == pt::test::relative(1024 / 250.0));
  BandwidthOptions peaks;
  peaks.apply_device_efficiency = false;
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, slow_matmul, peaks).seconds == pt::test::relative(1024 / 1e3));
}

TEST_CASE("a convolution runs at the device's convolution efficiency, a matmul at its matmul efficiency") {
  // x [2,6,10,10] * w [4,3,3,3], groups 2 -> [2,4,8,8]: 27648 FLOPs (runtime_estimate_test.cpp).
  const std::string conv_args =
      R"(args { none: true } args { list { items { int: 1 } items { int: 1 } } }
         args { list { items { int: 0 } items { int: 0 } } } args { list { items { int: 1 } items { int: 1 } } }
         args { bool: false } args { list { items { int: 0 } items { int: 0 } } } args { int: 2 })";
  GraphBuilder b;
  b.input("x", {2, 6, 10, 10});
  b.input("w", {4, 3, 3, 3});
  b.op("conv", "aten.convolution.default", {"x", "w"}, {2, 4, 8, 8}, "float32", {}, conv_args);
  b.input("a", {8, 16});
  b.input("m", {16, 4});
  b.op("mm", "aten.mm.default", {"a", "m"}, {8, 4});
  const Graph g = b.build({"conv", "mm"});
  const pt::Subgraph pass = pt::test::whole_pass(g);
  const auto ops = pt::OpClasses::pytorch_defaults();
  // Memory is free here: each kernel's time is its FLOPs over the float32
  // rate (1e3) times its efficiency.
  pt::Device d{"f", 1e18, 2e3, 1e3, 1, 0.5};
  d.conv_efficiency = 0.25;
  const PassEstimate p = pt::estimate_pass(g, pass, g.outputs, ops, d);
  REQUIRE(p.kernels.size() == 2);
  CHECK(p.kernels[0].flops == 27648);
  CHECK(p.kernels[0].seconds == pt::test::relative(27648 / 250.0));
  CHECK(p.kernels[1].flops == 1024);
  CHECK(p.kernels[1].seconds == pt::test::relative(1024 / 500.0));
  BandwidthOptions peaks;
  peaks.apply_device_efficiency = false;
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d, peaks).kernels[0].seconds == pt::test::relative(27648 / 1e3));
}

TEST_CASE("a compute-intensive op is a kernel of its own; its fused input is stored") {
  GraphBuilder b;
  b.input("a", {8, 16});
  b.input("w", {16, 4});
  b.op("r", "aten.relu.default", {"a"}, {8, 16});
  b.op("mm", "aten.mm.default", {"r", "w"}, {8, 4});
  b.op("t", "aten.tanh.default", {"mm"}, {8, 4});
  const PassEstimate p = estimate_all(b.build({"t"}));
  REQUIRE(p.kernels.size() == 3);
  CHECK(p.kernels[1].fused == false);
  CHECK(p.kernels[1].flops == 2 * 8 * 4 * 16);
  CHECK(p.kernels[1].bytes_loaded == 512 + 256);
  CHECK(p.kernels[1].bytes_stored == 128);
  CHECK(p.bytes_loaded == 512 + (512 + 256) + 128);
  CHECK(p.bytes_stored == 512 + 128 + 128);
  CHECK(p.flops == 1024);
}

// exp(x) divided by its row sum, over rows of `cols` elements.
static Graph exp_over_row_sum(int64_t cols) {
  GraphBuilder b;
  b.input("x", {100, cols});
  b.op("e", "aten.exp.default", {"x"}, {100, cols});
  b.op("s", "aten.sum.dim_IntList", {"e"}, {100, 1}, "float32", {"reduction"});
  b.op("d", "aten.div.Tensor", {"e", "s"}, {100, cols});
  return b.build({"d"});
}

TEST_CASE("a reduction ends its kernel; a consumer of its result and its input reads the input again") {
  const Graph g = exp_over_row_sum(10);
  const PassEstimate p = estimate_all(g);
  REQUIRE(p.kernels.size() == 2);
  // exp+sum: x in, s out. div: exp computed again from x, plus s.
  CHECK(p.kernels[0].bytes_loaded == 4000);
  CHECK(p.kernels[0].bytes_stored == 400);
  CHECK(p.kernels[1].bytes_loaded == 4400);
  CHECK(p.kernels[1].bytes_stored == 4000);

  SUBCASE("recompute_fused_inputs off: exp is stored and loaded instead") {
    BandwidthOptions o;
    o.recompute_fused_inputs = false;
    const PassEstimate q = estimate_all(g, o);
    CHECK(q.bytes_loaded == 4000 + 4400);
    CHECK(q.bytes_stored == 400 + 4000 + 4000);
  }
  SUBCASE("reductions_end_kernels off: the division joins the reduction's kernel") {
    BandwidthOptions o;
    o.reductions_end_kernels = false;
    const PassEstimate q = estimate_all(g, o);
    CHECK(q.kernels.size() == 1);
    CHECK(q.bytes_loaded == 4000);
    CHECK(q.bytes_stored == 400 + 4000);
  }
}

TEST_CASE("a reduction over fewer than 8 elements per output is pointwise: Inductor unrolls it") {
  const Graph g = exp_over_row_sum(2);
  // One kernel: x in, d out; the sum of two elements is an expression.
  const PassEstimate p = estimate_all(g);
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.bytes_loaded == 800);
  CHECK(p.bytes_stored == 800);

  SUBCASE("unroll_small_reductions off: the sum ends its kernel") {
    BandwidthOptions o;
    o.unroll_small_reductions = false;
    CHECK(estimate_all(g, o).kernels.size() == 2);
  }
}

// s sums `cols` elements of x1 + x2 + x3 per row and has two readers; the
// second, r2, waits for a matmul of the first and starts a kernel of its own.
static Graph sum_read_after_matmul(int64_t cols) {
  GraphBuilder b;
  for (const char* x : {"x1", "x2", "x3"}) b.input(x, {100, cols});
  b.input("y", {100, 1});
  b.input("w", {1, 1});
  b.op("a2", "aten.add.Tensor", {"x1", "x2"}, {100, cols});
  b.op("a3", "aten.add.Tensor", {"a2", "x3"}, {100, cols});
  b.op("s", "aten.sum.dim_IntList", {"a3"}, {100, 1}, "float32", {"reduction"});
  b.op("r1", "aten.mul.Tensor", {"s", "y"}, {100, 1});
  b.op("m", "aten.mm.default", {"r1", "w"}, {100, 1});
  b.op("r2", "aten.add.Tensor", {"s", "m"}, {100, 1});
  return b.build({"r2"});
}

TEST_CASE("an unrolled reduction reads its inputs once per element, and Inductor counts each read") {
  // Over 2 elements, s reads 3 buffers at 2 indices each: 6 reads. With
  // two readers it is realized, and r2 loads it (400 bytes) with m (400)
  // instead of computing it again from x1..x3 (3 x 800).
  const PassEstimate p = estimate_all(sum_read_after_matmul(2));
  REQUIRE(p.kernels.size() == 3);
  CHECK(p.kernels[2].bytes_loaded == 400 + 400);
  // Over 8 elements s is a reduction, stored by its kernel: the same loads.
  CHECK(estimate_all(sum_read_after_matmul(8)).kernels.back().bytes_loaded == 400 + 400);
}

TEST_CASE("a fill that a scatter copies is written into the scatter's buffer, not stored") {
  GraphBuilder b;
  b.input("idx", {10}, "int64");
  b.input("v", {10});
  b.op("f", "aten.full.default", {}, {100});
  b.op("p", "aten.index_put.default", {"f", "idx", "v"}, {100});
  const Graph g = b.build({"p"});
  // The scatter's output (400 bytes) alone; off, the fill is stored too.
  CHECK(estimate_all(g).bytes_stored == 400);
  BandwidthOptions o;
  o.fills_at_readers = false;
  CHECK(estimate_all(g, o).bytes_stored == 400 + 400);
}

// x1 + x2 + ... + xn, read by a row sum and by a division by that sum: the
// division cannot join the sum's kernel, so it reads the chain's value again.
static Graph sum_then_divide(int n) {
  GraphBuilder b;
  for (int i = 1; i <= n; ++i) b.input("x" + std::to_string(i), {100, 10});
  std::string prev = "x1";
  for (int i = 2; i <= n; ++i) {
    const std::string name = "a" + std::to_string(i);
    b.op(name, "aten.add.Tensor", {prev, "x" + std::to_string(i)}, {100, 10});
    prev = name;
  }
  b.op("s", "aten.sum.dim_IntList", {prev}, {100, 1}, "float32", {"reduction"});
  b.op("d", "aten.div.Tensor", {prev, "s"}, {100, 10});
  return b.build({"d"});
}

TEST_CASE("a value with several readers whose computation reads more than 4 buffers is stored once (Inductor realizes it)") {
  const Graph g = sum_then_divide(5);
  const PassEstimate p = estimate_all(g);
  REQUIRE(p.kernels.size() == 2);
  // The chain and its sum: 5 inputs in, the chain's value and the sum out.
  CHECK(p.kernels[0].bytes_loaded == 5 * 4000);
  CHECK(p.kernels[0].bytes_stored == 4000 + 400);
  // The division loads the stored value and the sum.
  CHECK(p.kernels[1].bytes_loaded == 4000 + 400);
  CHECK(p.kernels[1].bytes_stored == 4000);

  SUBCASE("realize_reused_values off: the division computes the chain again from its 5 inputs") {
    BandwidthOptions o;
    o.realize_reused_values = false;
    const PassEstimate q = estimate_all(g, o);
    CHECK(q.kernels[1].bytes_loaded == 5 * 4000 + 400);
    CHECK(q.bytes_stored == 400 + 4000);
  }
  SUBCASE("4 buffers read: inlined into each reader, as Inductor does") {
    const PassEstimate q = estimate_all(sum_then_divide(4));
    CHECK(q.kernels[1].bytes_loaded == 4 * 4000 + 400);
    CHECK(q.bytes_stored == 400 + 4000);
  }
}

TEST_CASE("a fused chain that ends in a gather is evaluated at the gathered positions only") {
  GraphBuilder b;
  b.input("x", {100, 10});
  b.input("idx", {100, 1}, "int64");
  b.op("e", "aten.exp.default", {"x"}, {100, 10});
  b.op("g", "aten.gather.default", {"e"}, {100, 1}, "float32", {}, "args { int: 1 } args { node: \"idx\" }");
  const Graph g = b.build({"g"});
  const PassEstimate p = estimate_all(g);
  CHECK(p.bytes_loaded == 100 * 4 + 800);
  CHECK(p.bytes_stored == 400);

  SUBCASE("when the chain's value is also saved, it is computed whole") {
    const Graph g2 = GraphBuilder(b).build({"g", "e"});
    const PassEstimate q = estimate_all(g2);
    CHECK(q.bytes_loaded == 4000 + 800);
    CHECK(q.bytes_stored == 400 + 4000);
  }
  SUBCASE("indexing_reads_selection off: the whole source is read") {
    BandwidthOptions o;
    o.indexing_reads_selection = false;
    CHECK(estimate_all(g, o).bytes_loaded == 4000 + 800);
  }
}

TEST_CASE("views of memory cost nothing; a broadcast input is read once per element it has") {
  GraphBuilder b;
  b.input("x", {4, 8});
  b.input("bias", {8});
  b.op("t", "aten.permute.default", {"x"}, {8, 4}, "float32", {}, "args { list { items { int: 1 } items { int: 0 } } }");
  b.op("v", "aten.view.default", {"bias"}, {8, 1}, "float32", {}, "args { list { items { int: 8 } items { int: 1 } } }");
  b.op("a", "aten.add.Tensor", {"t", "v"}, {8, 4});
  const PassEstimate p = estimate_all(b.build({"a"}));
  REQUIRE(p.kernels.size() == 1);
  CHECK(p.bytes_loaded == 128 + 32);
  CHECK(p.bytes_stored == 128);
}

TEST_CASE("a node may not join a kernel it depends on through another kernel") {
  GraphBuilder b;
  b.input("a", {8, 8});
  b.input("w", {8, 8});
  b.op("r", "aten.relu.default", {"a"}, {8, 8});
  b.op("mm", "aten.mm.default", {"r", "w"}, {8, 8});
  b.op("s", "aten.add.Tensor", {"r", "mm"}, {8, 8});
  const PassEstimate p = estimate_all(b.build({"s"}));
  REQUIRE(p.kernels.size() == 3);
  // relu is stored for the matmul, so the add loads it rather than recomputing it.
  CHECK(p.kernels[2].bytes_loaded == 256 + 256);
  CHECK(p.bytes_stored == 256 * 3);
}

TEST_CASE("linear_ce: exact bytes of both cuts, and the softmax store + reload as their difference") {
  const auto loaded = pt::load_graph_file(std::string(PT_SAMPLE_DIR) + "/linear_ce.pb", pt::Format::Binary);
  const pt::Device a100 = pt::parse_device("a100");
  auto estimate = [&](double base) {
    pt::Settings s;
    s.dist_from_bw_base = base;
    const pt::Partitioned p = pt::partition_joint(loaded.graph, s);
    return pt::estimate_bandwidth(p.prepared.graph, p.result, s.op_classes, a100);
  };
  const pt::BandwidthEstimate saved_mm = estimate(1.1);
  const pt::BandwidthEstimate saved_softmax = estimate(1.2);

  CHECK(saved_mm.forward.bytes_loaded == 6793000458ULL);
  CHECK(saved_mm.forward.bytes_stored == 3371700238ULL);
  CHECK(saved_mm.backward.bytes_loaded == 16674780680ULL);
  CHECK(saved_mm.backward.bytes_stored == 10086719488ULL);
  CHECK(saved_softmax.forward.bytes_loaded == 10086577674ULL);
  CHECK(saved_softmax.forward.bytes_stored == 6665211918ULL);
  CHECK(saved_softmax.backward.bytes_loaded == 16674518536ULL);
  CHECK(saved_softmax.backward.bytes_stored == 10086719488ULL);

  // One load of the logits (32768 x 50257 bf16) plus one store of the
  // softmax output, less the 32768 gathered logits the default cut's loss
  // kernel reads and the 32768 x fp32 `log` row statistic it saves.
  const int64_t softmax = 32768LL * 50257 * 2;
  const int64_t fw_delta = static_cast<int64_t>(saved_softmax.forward.bytes()) -
                           static_cast<int64_t>(saved_mm.forward.bytes());
  CHECK(fw_delta == 2 * softmax - 32768 * 2 - 32768 * 4);
  const double fw_seconds_delta = saved_softmax.forward.seconds - saved_mm.forward.seconds;
  CHECK(fw_seconds_delta == pt::test::relative(fw_delta / 1.555e12));
  CHECK(fw_seconds_delta == pt::test::relative(4.236e-3).epsilon(0.001));
  const double bw_ratio = static_cast<double>(saved_softmax.backward.bytes()) / saved_mm.backward.bytes();
  CHECK(bw_ratio == pt::test::relative(1.0).epsilon(0.05));
}

// Horizontal fusion (estimate/sibling_fusion.h).
TEST_CASE("a recomputation and a backward op that read the same saved value load it once") {
  const Graph g = recompute_and_backward(0).build({"mm", "d"});
  const PassEstimate merged = estimate_all(g);
  const PassEstimate apart = estimate_all(g, without_merging());
  // relu + mul: h and g once (8000), r and d stored (8000); the matmul reads r and w.
  CHECK(merged.kernels.size() == 2);
  CHECK(apart.kernels.size() == 3);
  CHECK(merged.bytes_loaded == 8000 + 8000);
  CHECK(apart.bytes_loaded == merged.bytes_loaded + 4000);  // h a second time
  CHECK(merged.bytes_stored == apart.bytes_stored);
}

TEST_CASE("kernels do not merge when one depends on the other through a third kernel") {
  GraphBuilder b;
  b.input("h", {10, 100});
  b.input("w", {100, 100});
  b.op("r", "aten.relu.default", {"h"}, {10, 100});
  b.op("mm", "aten.mm.default", {"r", "w"}, {10, 100});
  b.op("d", "aten.mul.Tensor", {"mm", "h"}, {10, 100});
  const Graph g = b.build({"d"});
  const PassEstimate merged = estimate_all(g);
  CHECK(merged.kernels.size() == 3);
  CHECK(merged.bytes_loaded == estimate_all(g, without_merging()).bytes_loaded);
}

TEST_CASE("a kernel that reads a reduction's tuple items does not merge with that reduction's kernel") {
  // A normalization: var_mean over rows, then (x - mean) * var in a kernel
  // of its own that reads x again; a matmul of it and a second var_mean of
  // its sum with x. The getitems of var_mean stand in memory for their
  // readers, yet depend on it: the normalization may not join var_mean's
  // kernel, nor the second reduction the first's (a path through the
  // matmul).
  GraphBuilder b;
  b.input("x", {64, 128});
  b.input("w", {128, 128});
  b.tuple_op("vm", "aten.var_mean.correction", {"x"}, {{64, 1}, {64, 1}}, "float32", {"reduction"});
  b.item("var", "vm", 0, {64, 1});
  b.item("mean", "vm", 1, {64, 1});
  b.op("sub", "aten.sub.Tensor", {"x", "mean"}, {64, 128});
  b.op("y", "aten.mul.Tensor", {"sub", "var"}, {64, 128});
  b.op("mm", "aten.mm.default", {"y", "w"}, {64, 128});
  b.op("h", "aten.add.Tensor", {"mm", "x"}, {64, 128});
  b.tuple_op("vm2", "aten.var_mean.correction", {"h"}, {{64, 1}, {64, 1}}, "float32", {"reduction"});
  b.item("var2", "vm2", 0, {64, 1});
  const Graph g = b.build({"var2"});
  const PassEstimate merged = estimate_all(g);
  const PassEstimate apart = estimate_all(g, without_merging());
  // var_mean, the normalization, the matmul, the second var_mean.
  CHECK(merged.kernels.size() == 4);
  CHECK(merged.bytes_loaded == apart.bytes_loaded);
  CHECK(merged.bytes_loaded >= 3 * 64 * 128 * 4);  // x by both var_means' kernels and the normalization
}

TEST_CASE("readers of a reduction along rows of at most 1024 elements join its kernel") {
  // A LayerNorm: var_mean over each row, then (x - mean) * rsqrt(var + eps).
  // Inductor keeps a row of up to 1024 elements in registers and normalizes
  // it in the statistics' kernel; a longer row is looped over, and the
  // normalization reads it again as a kernel of its own would.
  auto layer_norm = [](int64_t columns) {
    GraphBuilder b;
    b.input("x", {64, columns});
    b.tuple_op("vm", "aten.var_mean.correction", {"x"}, {{64, 1}, {64, 1}}, "float32", {"reduction"},
               "args { list { items { int: 1 } } }");
    b.item("var", "vm", 0, {64, 1});
    b.item("mean", "vm", 1, {64, 1});
    b.op("sub", "aten.sub.Tensor", {"x", "mean"}, {64, columns});
    b.op("rstd", "aten.rsqrt.default", {"var"}, {64, 1});
    b.op("y", "aten.mul.Tensor", {"sub", "rstd"}, {64, columns});
    return b.build({"y"});
  };
  const PassEstimate persistent = estimate_all(layer_norm(768));
  CHECK(persistent.kernels.size() == 1);
  CHECK(persistent.bytes_loaded < 2 * 64 * 768 * 4);  // x once (and the statistics, small)
  BandwidthOptions apart;
  apart.row_reduction_readers_join = false;
  CHECK(estimate_all(layer_norm(768), apart).kernels.size() == 2);
  const PassEstimate looped = estimate_all(layer_norm(2048));
  CHECK(looped.kernels.size() == 2);
  CHECK(looped.bytes_loaded >= 2 * 64 * 2048 * 4);
}

TEST_CASE("kernels far apart merge only when the recomputation runs next to its reader") {
  // 300 nodes between relu and its matmul reader: too far apart in graph
  // order, next to the mul once relu is known to be recomputed (PyTorch
  // emits it just before its first reader).
  const Graph g = recompute_and_backward(300).build({"mm", "d", "c299"});
  const PassEstimate in_graph_order = estimate_all(g);
  CHECK(in_graph_order.bytes_loaded == estimate_all(g, without_merging()).bytes_loaded);
  const pt::NodeId relu = g.find("r");
  REQUIRE(relu != pt::kNoNode);
  const PassEstimate emitted_order = estimate_all(g, {}, {relu});
  CHECK(emitted_order.bytes_loaded == in_graph_order.bytes_loaded - 4000);
}

TEST_CASE("a constant_pad_nd that a matmul reads stays a kernel of its own with pad_is_pointwise") {
  // Inductor's pad_mm pass pads a matmul operand: a kernel of its own writes
  // the padded copy (its loop, the padded size, no other kernel shares), so
  // the relu that produces the operand does not compute the pad too.
  GraphBuilder b;
  b.input("a", {8, 15});
  b.input("w", {16, 4});
  b.op("r", "aten.relu.default", {"a"}, {8, 15}, "float32", {"pointwise"});
  b.op("p", "aten.constant_pad_nd.default", {"r"}, {8, 16}, "float32", {},
       "args { list { items { int: 0 } items { int: 1 } } } args { float: 0.0 }");
  b.op("mm", "aten.mm.default", {"p", "w"}, {8, 4});
  const Graph g = b.build({"mm"});
  const PassEstimate e = estimate_all(g);
  REQUIRE(e.kernels.size() == 3);  // relu, pad, mm
  CHECK(e.bytes_stored == 480 + 512 + 128);
}

TEST_CASE("constant_pad_nd joins its reader's kernel with pad_is_pointwise (the default)") {
  GraphBuilder b;
  b.input("x", {4});
  b.op("p", "aten.constant_pad_nd.default", {"x"}, {5}, "float32", {},
       "args { list { items { int: 0 } items { int: 1 } } } args { float: 0.0 }");
  b.op("r", "aten.relu.default", {"p"}, {5}, "float32", {"pointwise"});
  const Graph g = b.build({"r"});
  // Off: as PyTorch's fusible set has it (the pad is not in it), a kernel of
  // its own that stores the pad.
  BandwidthOptions apart;
  apart.pad_is_pointwise = false;
  const PassEstimate own = estimate_all(g, apart);
  CHECK(own.kernels.size() == 2);
  CHECK(own.bytes_stored == 40);
  // On (the default): Inductor lowers it to a masked load in the relu's loop.
  const PassEstimate fused = estimate_all(g);
  CHECK(fused.kernels.size() == 1);
  CHECK(fused.bytes_loaded == 16);
  CHECK(fused.bytes_stored == 20);
}

TEST_CASE("two estimates of one partition are equal, field by field (gpt2_124m)") {
  const auto loaded = pt::load_graph_file(std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb", pt::Format::Binary);
  const pt::Settings s;
  const pt::Partitioned p = pt::partition_joint(loaded.graph, s);
  const pt::Device h200 = pt::parse_device("h200");
  const pt::BandwidthEstimate one = pt::estimate_bandwidth(p.prepared.graph, p.result, s.op_classes, h200);
  const pt::BandwidthEstimate two = pt::estimate_bandwidth(p.prepared.graph, p.result, s.op_classes, h200);
  REQUIRE(one.forward.kernels.size() > 100);
  CHECK(one.forward == two.forward);
  CHECK(one.backward == two.backward);
  PassEstimate changed = one.forward;  // the comparison sees a kernel's field
  changed.kernels[7].bytes_cached += 1;
  CHECK_FALSE(changed == one.forward);
  CHECK(one.forward.bytes() != one.backward.bytes());  // the passes did not trade places
}

TEST_CASE("PassDetail::Totals: the totals and the kernel count of the full estimate, without its lists") {
  const auto loaded = pt::load_graph_file(std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb", pt::Format::Binary);
  const pt::Settings s;
  const pt::Partitioned p = pt::partition_joint(loaded.graph, s);
  const pt::Device h200 = pt::parse_device("h200");
  const pt::BandwidthEstimate full = pt::estimate_bandwidth(p.prepared.graph, p.result, s.op_classes, h200);
  {
    const pt::BandwidthEstimate totals =
        pt::estimate_bandwidth(p.prepared.graph, p.result, s.op_classes, h200, {}, pt::PassDetail::Totals);
    for (const auto& [kept, lean] : {std::pair{&full.forward, &totals.forward}, {&full.backward, &totals.backward}}) {
      REQUIRE(kept->kernels.size() > 100);
      CHECK(kept->kernel_count == static_cast<int64_t>(kept->kernels.size()));
      CHECK(kept->transfers.size() > kept->kernels.size());
      CHECK(lean->kernel_count == kept->kernel_count);
      CHECK(lean->kernels.empty());
      CHECK(lean->transfers.empty());
      PassEstimate with_lists = *lean;  // the rest, masks included, is the full estimate's
      with_lists.kernels = kept->kernels;
      with_lists.transfers = kept->transfers;
      CHECK(with_lists == *kept);
    }
  }
}

TEST_CASE("the peak memory simulated from the passes' kernel groups equals fused_peak_memory") {
  const pt::Settings s;
  const pt::Device h200 = pt::parse_device("h200");
  pt::PeakMemory whole;  // gpt2_124m's, under the default options
  // With and without the kernels' allocation at launch (the backward's
  // kernel ids reach the simulation only with it), on sac_mlp too, whose
  // backward peak that option moves.
  for (const char* graph : {"gpt2_124m", "sac_mlp"}) {
    CAPTURE(graph);
    const auto loaded =
        pt::load_graph_file(std::string(PT_TEST_DIR) + "/corpus/" + graph + ".pb", pt::Format::Binary);
    const pt::Partitioned p = pt::partition_joint(loaded.graph, s);
    std::vector<uint64_t> backward_peaks;
    for (bool at_launch : {true, false}) {
      CAPTURE(at_launch);
      pt::BandwidthOptions o;
      o.allocate_at_kernel_launch = at_launch;
      // On sac_mlp the option moves the backward's peak where a bias
      // gradient's sum runs in the kernel that computes its input, which
      // column_reductions_start_kernels undoes.
      o.column_reductions_start_kernels = std::string(graph) != "sac_mlp";
      const pt::BandwidthEstimate bw = pt::estimate_bandwidth(p.prepared.graph, p.result, s.op_classes, h200, o);
      const pt::PeakMemory fused = pt::fused_peak_memory(p.prepared.graph, p.result, s.op_classes, bw, o);
      REQUIRE(fused.forward_peak_bytes > fused.input_bytes);  // the forward allocates
      backward_peaks.push_back(fused.backward_peak_bytes);
      if (at_launch && std::string(graph) == "gpt2_124m") whole = fused;
      {
        const pt::BandwidthAndPeak both =
            pt::estimate_bandwidth_and_peak(p.prepared.graph, p.result, s.op_classes, h200, o);
        CHECK(both.bandwidth.forward == bw.forward);
        CHECK(both.bandwidth.backward == bw.backward);
        CHECK(both.memory == fused);
      }
    }
    if (std::string(graph) == "sac_mlp") CHECK(backward_peaks[0] != backward_peaks[1]);
  }
  pt::PeakMemory changed = whole;  // the comparison sees the backward's peak
  changed.backward_peak_bytes += 1;
  CHECK_FALSE(changed == whole);
}
