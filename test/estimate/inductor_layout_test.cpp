// Inductor's layout optimization (estimate/inductor_layout.h): which graphs
// it lays out channels-last, the strides it gives them, and what that
// changes in a BatchNorm statistic's kernel.
#include <doctest/doctest.h>

#include <string>

#include "estimate/bandwidth_model.h"
#include "estimate/column_reduction.h"
#include "estimate/inductor_layout.h"
#include "report/graph_builder.h"

namespace {

using pt::test::GraphBuilder;

// aten.convolution's arguments after input and weight: no bias, stride 1,
// no padding, dilation 1, not transposed, no output padding, `groups`.
std::string conv_args(int groups) {
  const std::string ones = "args { list { items { int: 1 } items { int: 1 } } } ";
  const std::string zeros = "args { list { items { int: 0 } items { int: 0 } } } ";
  return "args { none: true } " + ones + zeros + ones + "args { bool: false } " + zeros +
         "args { int: " + std::to_string(groups) + " }";
}

// x [8, 3, 16, 16] -> conv (weight `w_shape`, `groups`) -> y [8, 96, 16, 16]
// -> its per-channel variance and mean (BatchNorm's statistics), NCHW as
// traced; `extra` pointwise ops after it.
pt::Graph conv_graph(const std::vector<int64_t>& w_shape, int groups, int in_channels = 3, int extra = 0) {
  GraphBuilder b;
  b.input("x", {8, in_channels, 16, 16}, "bfloat16");
  b.input("w", w_shape, "bfloat16");
  b.op("y", "aten.convolution.default", {"x", "w"}, {8, 96, 16, 16}, "bfloat16", {}, conv_args(groups));
  b.tuple_op("stats", "aten.var_mean.correction", {"y"}, {{1, 96, 1, 1}, {1, 96, 1, 1}}, "float32", {"reduction"},
             "args { list { items { int: 0 } items { int: 2 } items { int: 3 } } }");
  b.item("var", "stats", 0, {1, 96, 1, 1});
  std::string last = "y";
  for (int i = 0; i < extra; ++i) {
    const std::string name = "r" + std::to_string(i);
    b.op(name, "aten.relu.default", {last}, {8, 96, 16, 16}, "bfloat16", {"pointwise"});
    last = name;
  }
  return b.build({"var", last});
}

}  // namespace

TEST_CASE("Inductor lays out a graph of ordinary convolutions channels-last, and not the kinds it avoids") {
  CHECK(pt::inductor_lays_out_channels_last(conv_graph({96, 3, 3, 3}, 1)));
  // Grouped with more than one input channel per group.
  CHECK_FALSE(pt::inductor_lays_out_channels_last(conv_graph({96, 2, 3, 3}, 48, 96)));
  // Depthwise (one input channel per group) is kept.
  CHECK(pt::inductor_lays_out_channels_last(conv_graph({96, 1, 3, 3}, 96, 96)));
  // A 3x3 kernel narrowing 256 channels to 96.
  CHECK_FALSE(pt::inductor_lays_out_channels_last(conv_graph({96, 256, 3, 3}, 1, 256)));
  // ... though a 1x1 one may.
  CHECK(pt::inductor_lays_out_channels_last(conv_graph({96, 256, 1, 1}, 1, 256)));
  // Every convolution of at most 64 channels in and out.
  CHECK_FALSE(pt::inductor_lays_out_channels_last(conv_graph({64, 3, 3, 3}, 1)));
  // One convolution among 300 forward nodes or more.
  CHECK_FALSE(pt::inductor_lays_out_channels_last(conv_graph({96, 3, 3, 3}, 1, 3, 300)));
  CHECK(pt::inductor_lays_out_channels_last(conv_graph({96, 3, 3, 3}, 1, 3, 250)));
}

TEST_CASE("in such a graph a contiguous 4-D value takes channels-last strides; others keep theirs") {
  pt::proto::TensorMeta t;
  for (int64_t s : {8, 96, 16, 16}) t.add_shape(s);
  for (int64_t s : {96 * 256, 256, 16, 1}) t.add_stride(s);
  CHECK(pt::inductor_strides(t, true) == std::vector<int64_t>{96 * 256, 1, 16 * 96, 96});
  CHECK(pt::inductor_strides(t, false) == std::vector<int64_t>{96 * 256, 256, 16, 1});
  pt::proto::TensorMeta one_channel;
  for (int64_t s : {8, 1, 16, 16}) one_channel.add_shape(s);
  for (int64_t s : {256, 256, 16, 1}) one_channel.add_stride(s);
  CHECK(pt::inductor_strides(one_channel, true) == std::vector<int64_t>{256, 256, 16, 1});
  pt::proto::TensorMeta rows;
  for (int64_t s : {8, 96, 256}) rows.add_shape(s);
  for (int64_t s : {96 * 256, 256, 1}) rows.add_stride(s);
  CHECK(pt::inductor_strides(rows, true) == std::vector<int64_t>{96 * 256, 256, 1});
}

TEST_CASE("an NCHW BatchNorm statistic is a split reduction across rows where Inductor lays it out channels-last") {
  const pt::Graph g = conv_graph({96, 3, 3, 3}, 1);
  const pt::NodeId stats = g.find("stats");
  const pt::Flags cl = pt::channels_last_values(g);
  CHECK(pt::column_reduction_row_bytes(g, stats, cl) == 96 * 2);
  CHECK(pt::column_reduction_row_bytes(g, stats, {}) == 0);
  CHECK(pt::is_split_reduction(g, stats, 132, cl));
  CHECK_FALSE(pt::is_split_reduction(g, stats, 132, {}));  // 96 rows along, each of 2048

  pt::Device d{"test", 1e12, 1e15, 1e15};
  d.kernel_latency_seconds = 2e-6;
  d.multiprocessors = 132;
  d.column_reduction.row_overhead_bytes = 64;
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Subgraph pass = pt::test::whole_pass(g);
  pt::BandwidthOptions off;
  off.inductor_layout_optimization = false;
  const pt::PassEstimate laid_out = pt::estimate_pass(g, pass, g.outputs, ops, d);
  const pt::PassEstimate recorded = pt::estimate_pass(g, pass, g.outputs, ops, d, off);
  // Two more kernel latencies, and rows of 192 bytes at 192 / (192 + 64) of the bandwidth.
  CHECK(laid_out.seconds > recorded.seconds + 4e-6);
}

TEST_CASE("channels-last values: a convolution's inputs and outputs and what follows, not past a matmul") {
  GraphBuilder b;
  b.input("x", {8, 3, 16, 16}, "bfloat16");
  b.input("w", {96, 3, 3, 3}, "bfloat16");
  b.op("y", "aten.convolution.default", {"x", "w"}, {8, 96, 16, 16}, "bfloat16", {}, conv_args(1));
  b.op("r", "aten.relu.default", {"y"}, {8, 96, 16, 16}, "bfloat16", {"pointwise"});
  // Attention over the pixels: [8, 96, 256] -> a 3-D matmul -> scores viewed 4-D.
  b.op("tokens", "aten.view.default", {"r"}, {8, 96, 256}, "bfloat16");
  b.op("scores", "aten.bmm.default", {"tokens", "tokens"}, {8, 96, 96}, "bfloat16");
  b.op("heads", "aten.view.default", {"scores"}, {8, 1, 96, 96}, "bfloat16");
  b.op("g", "aten.mul.Tensor", {"r", "r"}, {8, 96, 16, 16}, "bfloat16", {"pointwise"});
  const pt::Graph g = b.build({"heads", "g"});
  const pt::Flags cl = pt::channels_last_values(g);
  REQUIRE(cl.size() == g.nodes.size());
  CHECK(cl[g.find("x")]);  // feeds the convolution
  CHECK(cl[g.find("y")]);
  CHECK(cl[g.find("r")]);
  CHECK(cl[g.find("g")]);  // computed from a channels-last value
  CHECK_FALSE(cl[g.find("scores")]);  // a matmul's result
  CHECK_FALSE(cl[g.find("heads")]);   // a view of it
  CHECK(pt::channels_last_values(conv_graph({96, 2, 3, 3}, 48, 96)).empty());
}
