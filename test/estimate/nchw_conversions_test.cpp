// cuDNN's layout conversions around 16-bit convolutions Inductor keeps NCHW
// (estimate/nchw_conversions.h): which convolutions pay for them, and what.
#include <doctest/doctest.h>

#include "support/relative.h"

#include <string>

#include "estimate/bandwidth_model.h"
#include "estimate/convolution_time.h"
#include "estimate/inductor_layout.h"
#include "estimate/kernel_flops.h"
#include "estimate/nchw_conversions.h"
#include "report/graph_builder.h"
#include "support/op_graph.h"

namespace {

using pt::test::GraphBuilder;

// No bias, `stride`, padding 1, dilation 1, not transposed, no output
// padding, `groups`.
std::string conv_args(int groups, int stride = 1) {
  const std::string ones = "args { list { items { int: 1 } items { int: 1 } } } ";
  const std::string zeros = "args { list { items { int: 0 } items { int: 0 } } } ";
  const std::string s = std::to_string(stride);
  const std::string strides = "args { list { items { int: " + s + " } items { int: " + s + " } } } ";
  return "args { none: true } " + strides + ones + ones + "args { bool: false } " + zeros + "args { int: " +
         std::to_string(groups) + " }";
}

// x [8, 96, 16, 16] (dtype, strides as given) -> conv (weight `w`, `groups`).
pt::Graph conv(const std::vector<int64_t>& w, int groups, const std::string& dtype = "bfloat16",
               const std::vector<int64_t>& x_stride = {}, int stride = 1) {
  GraphBuilder b;
  if (x_stride.empty()) {
    b.input("x", {8, 96, 16, 16}, dtype);
  } else {
    b.strided_input("x", {8, 96, 16, 16}, x_stride, dtype);
  }
  b.input("w", w, dtype);
  const int64_t out = 16 / stride;
  b.op("y", "aten.convolution.default", {"x", "w"}, {8, 96, out, out}, dtype, {}, conv_args(groups, stride));
  return b.build({"y"});
}

bool converts(const pt::Graph& g) {
  return pt::converts_nchw_layout(g, g.find("y"), pt::channels_last_values(g));
}

}  // namespace

TEST_CASE("Convolutions Inductor keeps NCHW convert their layout where the filter is wider than 1x1") {
  // Grouped with two channels a group: Inductor keeps NCHW; a 3x3 filter
  // runs as cuDNN's NHWC kernel between conversions.
  CHECK(converts(conv({96, 2, 3, 3}, 48)));
  CHECK(converts(conv({96, 2, 3, 3}, 48, "float16")));
  // A 1x1 filter of stride 1 runs as a GEMM on the NCHW tensors; of
  // stride 2 (a ResNet downsample) it converts too.
  CHECK_FALSE(converts(conv({96, 96, 1, 1}, 1)));
  CHECK(converts(conv({96, 2, 1, 1}, 48, "bfloat16", {}, 2)));
  // Channels-last already, or float32 (cuDNN has NCHW kernels for it).
  CHECK_FALSE(converts(conv({96, 2, 3, 3}, 48, "bfloat16", {96 * 256, 1, 16 * 96, 96})));
  CHECK_FALSE(converts(conv({96, 2, 3, 3}, 48, "float32")));
}

TEST_CASE("A convolution Inductor lays out channels-last converts nothing") {
  // One dense 3x3 convolution of 96 channels in a 3-node forward: Inductor's
  // layout optimization applies, whatever the recorded NCHW strides.
  const pt::Graph g = conv({96, 96, 3, 3}, 1);
  REQUIRE(pt::inductor_lays_out_channels_last(g));
  CHECK_FALSE(converts(g));
  // Read at the recorded strides (the layout rule off), it would.
  CHECK(pt::converts_nchw_layout(g, g.find("y"), pt::Flags{}));
}

TEST_CASE("Each kernel reads and writes its tensors once more, one conversion kernel a tensor") {
  const pt::Graph g = conv({96, 2, 3, 3}, 48);
  const pt::NodeId y = g.find("y");
  const pt::Device h100 = pt::parse_device("h100");
  REQUIRE(h100.nchw_conversion_fraction > 0);
  // x and y: 8 x 96 x 16 x 16 x 2 B each; w: 96 x 2 x 9 x 2 B.
  const double bytes = 2.0 * 196608 * 2 + 96 * 2 * 9 * 2;
  const double rate = h100.bytes_per_second * h100.memory_efficiency * h100.nchw_conversion_fraction;
  const double expected = 2 * bytes / rate + 3 * h100.kernel_latency_seconds;
  CHECK(pt::nchw_conversion_seconds(g, y, pt::channels_last_values(g), h100, {}) == pt::test::relative(expected));

  pt::BandwidthOptions off;
  off.nchw_layout_conversions = false;
  CHECK(pt::nchw_conversion_seconds(g, y, {}, h100, off) == 0);
  CHECK(pt::nchw_conversion_seconds(g, y, {}, pt::parse_device("a100"), {}) == 0);  // not measured there
}

TEST_CASE("A strided 1x1 convolution converts what it reads and writes, not its filter") {
  const pt::Graph g = conv({96, 2, 1, 1}, 48, "bfloat16", {}, 2);
  const pt::Device h100 = pt::parse_device("h100");
  // x: 8 x 96 x 16 x 16 x 2 B, y: 8 x 96 x 8 x 8 x 2 B, w: 96 x 2 x 2 B.
  const double bytes = 196608.0 * 2 + 49152.0 * 2 + 96 * 2 * 2;
  const double rate = h100.bytes_per_second * h100.memory_efficiency * h100.nchw_conversion_fraction;
  CHECK(pt::nchw_conversion_seconds(g, g.find("y"), pt::channels_last_values(g), h100, {}) ==
        pt::test::relative(2 * bytes / rate + 2 * h100.kernel_latency_seconds));
}

TEST_CASE("A convolution backward pays for each gradient it computes") {
  // conv_graphs.h's shapes in bf16: x [2,4,5,5], 3x3 filter, both gradients.
  const std::vector<pt::test::Input> in = {
      {"go", {2, 4, 5, 5}, "bfloat16"}, {"x", {2, 4, 5, 5}, "bfloat16"}, {"w", {4, 4, 3, 3}, "bfloat16"}};
  const std::string tail =
      "args { list { items { int: 4 } } } args { list { items { int: 1 } items { int: 1 } } } "
      "args { list { items { int: 1 } items { int: 1 } } } args { list { items { int: 1 } items { int: 1 } } } "
      "args { bool: false } args { list { items { int: 0 } items { int: 0 } } } args { int: 1 } ";
  const auto graph = [&](bool input_grad) {
    return pt::test::one_op_graph(
        in, "aten.convolution_backward.default",
        pt::test::node_args({"go", "x", "w"}) + tail + "args { list { items { bool: " +
            (input_grad ? "true" : "false") + " } items { bool: true } items { bool: false } } }",
        pt::test::tuple_val({input_grad ? std::vector<int64_t>{2, 4, 5, 5} : std::vector<int64_t>{}, {4, 4, 3, 3}, {}}));
  };
  const pt::Device h100 = pt::parse_device("h100");
  const pt::Graph both = graph(true), weight_only = graph(false);
  const double t_both = pt::nchw_conversion_seconds(both, both.find("op"), {}, h100, {});
  const double t_weight = pt::nchw_conversion_seconds(weight_only, weight_only.find("op"), {}, h100, {});
  REQUIRE(t_weight > 0);
  // The input gradient's kernel reads go and w and writes x's gradient:
  // the same bytes as the weight gradient's (go, x in; w's gradient out).
  CHECK(t_both == pt::test::relative(2 * t_weight));
}

TEST_CASE("A 1x1 layer kept NCHW at a pixel count that is not a multiple of 8 runs as misaligned GEMMs") {
  // x [8, 96, hw, hw], read at its recorded (NCHW) strides.
  const auto at = [](int64_t hw, const std::vector<int64_t>& w, int stride = 1, const std::string& dtype = "bfloat16",
                     const std::vector<int64_t>& x_stride = {}) {
    GraphBuilder b;
    if (x_stride.empty()) {
      b.input("x", {8, 96, hw, hw}, dtype);
    } else {
      b.strided_input("x", {8, 96, hw, hw}, x_stride, dtype);
    }
    b.input("w", w, dtype);
    b.op("y", "aten.convolution.default", {"x", "w"}, {8, 96, hw, hw}, dtype, {}, conv_args(1, stride));
    return b.build({"y"});
  };
  const auto misaligned = [](const pt::Graph& g) { return pt::misaligned_nchw_gemm(g, g.find("y"), pt::Flags{}); };
  CHECK(misaligned(at(7, {96, 96, 1, 1})));    // 49 pixels
  CHECK(misaligned(at(14, {96, 96, 1, 1})));   // 196
  CHECK_FALSE(misaligned(at(8, {96, 96, 1, 1})));
  CHECK_FALSE(misaligned(at(28, {96, 96, 1, 1})));  // 784
  // A wider filter or a stride converts its layout instead; float32 and
  // channels-last tensors run aligned.
  CHECK_FALSE(misaligned(at(7, {96, 96, 3, 3})));
  CHECK_FALSE(misaligned(at(7, {96, 96, 1, 1}, 2)));
  CHECK_FALSE(misaligned(at(7, {96, 96, 1, 1}, 1, "float32")));
  CHECK_FALSE(misaligned(at(7, {96, 96, 1, 1}, 1, "bfloat16", {96 * 49, 1, 7 * 96, 96})));

  // Each kernel takes the device's factor times its channels-last time.
  const pt::Graph g = at(7, {96, 96, 1, 1});
  const pt::NodeId y = g.find("y");
  const pt::Device h100 = pt::parse_device("h100");
  REQUIRE(h100.dense_conv.misaligned_nchw > 0);
  const double flops = pt::kernel_flops(g, y);
  pt::BandwidthOptions off;
  off.nchw_misaligned_gemms = false;
  const double aligned = pt::convolution_seconds(g, y, flops, 1e15, h100, off, pt::Flags{});
  CHECK(pt::convolution_seconds(g, y, flops, 1e15, h100, {}, pt::Flags{}) ==
        pt::test::relative(h100.dense_conv.misaligned_nchw * aligned));
}

TEST_CASE("What a misaligned NCHW GEMM adds counts as the NCHW layout's cost, beside the conversions") {
  // A grouped 3x3 layer keeps the graph NCHW (converted around), then a 1x1
  // layer at 7x7 runs as misaligned GEMMs.
  GraphBuilder b;
  b.input("x", {8, 96, 7, 7}, "bfloat16");
  b.input("w1", {96, 2, 3, 3}, "bfloat16");
  b.input("w2", {96, 96, 1, 1}, "bfloat16");
  b.op("y1", "aten.convolution.default", {"x", "w1"}, {8, 96, 7, 7}, "bfloat16", {}, conv_args(48));
  b.op("y", "aten.convolution.default", {"y1", "w2"}, {8, 96, 7, 7}, "bfloat16", {}, conv_args(1));
  const pt::Graph g = b.build({"y"});
  REQUIRE(pt::misaligned_nchw_gemm(g, g.find("y"), pt::channels_last_values(g)));
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Device h100 = pt::parse_device("h100");
  pt::BandwidthOptions off;
  off.nchw_misaligned_gemms = false;
  const pt::PassEstimate with = pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, ops, h100);
  const pt::PassEstimate without = pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, ops, h100, off);
  CHECK(without.conversion_seconds > 0);  // the grouped layer's conversions
  CHECK(with.conversion_seconds > without.conversion_seconds);
  CHECK(with.seconds - without.seconds == pt::test::relative(with.conversion_seconds - without.conversion_seconds));
}
