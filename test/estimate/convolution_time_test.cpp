// The compute time of convolutions (estimate/convolution_time.h): the rate
// each runs at, depthwise kernels at their own rates, a backward's two
// kernels, stems of few channels, dense 16-bit layers by width; expected
// numbers worked out by hand.
#include <doctest/doctest.h>

#include "support/relative.h"

#include <string>
#include <vector>

#include "estimate/bandwidth_model.h"
#include "estimate/conv_graphs.h"
#include "estimate/kernel_flops.h"
#include "report/graph_builder.h"

using namespace pt::test;  // conv_backward, conv_tail, Input, node_args, one_op_graph, tensor_val

namespace {

// Bytes cost nothing (1e18 B/s): a kernel's time is its FLOPs at the rate
// it runs at. bf16 1e12, float32 (TF32) 5e11, CUDA cores 1e11 FLOP/s.
double seconds_of(const pt::Graph& g) {
  pt::Device d{"test", 1e18, 1e12, 5e11};
  d.vector_flops_per_second = 1e11;
  return pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, pt::OpClasses::pytorch_defaults(), d).seconds;
}

}  // namespace

TEST_CASE("seconds are compared within a relative tolerance, which microseconds twice apart fail") {
  // doctest::Approx alone passed this: its tolerance there is 1.2e-5 s.
  CHECK(1.8e-6 == doctest::Approx(0.9e-6));
  CHECK_FALSE(1.8e-6 == pt::test::relative(0.9e-6));
  CHECK(1.8e-6 == pt::test::relative(1.8e-6 * (1 + 1e-9)));
}

TEST_CASE("a float32 convolution_backward runs at the TF32 rate, a depthwise one on the CUDA cores") {
  // The tuple has no dtype of its own: its float32 inputs make it TF32.
  CHECK(seconds_of(conv_backward({4, 4, 3, 3}, 1)) == pt::test::relative(28800 / 5e11));
  CHECK(seconds_of(conv_backward({4, 1, 3, 3}, 4)) == pt::test::relative(7200 / 1e11));
}

TEST_CASE("each depthwise kernel takes its work at its rate or its bytes at its bandwidth, whichever is longer") {
  const pt::Graph g = conv_backward({4, 1, 3, 3}, 4, 2, {2, 4, 3, 3});
  pt::Device d{"test", 1e18, 1e12, 5e11};
  d.vector_flops_per_second = 1e11;
  d.depthwise = {{1, 1}, {0.5, 1}, {0.25, 1}};
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Subgraph pass = pt::test::whole_pass(g);
  // Bytes free: input gradient 3600 / 5e10, weight gradient 1296 / 2.5e10.
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds == pt::test::relative(3600 / 5e10 + 1296 / 2.5e10));
  // Work free: each kernel's bytes at its fraction of the bandwidth.
  d.vector_flops_per_second = 1e30;
  d.bytes_per_second = 1e6;
  d.depthwise = {{1, 1}, {1, 0.5}, {1, 0.25}};
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds ==
        pt::test::relative(4 * 308 / 5e5 + 4 * 308 / 2.5e5));
  // At the datasheet peaks: PyTorch's FLOPs (the weight term per group) at
  // the CUDA-core peak, and no less than the node's bytes.
  pt::BandwidthOptions peaks;
  peaks.apply_device_efficiency = false;
  d.vector_flops_per_second = 1e11;
  d.bytes_per_second = 1e18;
  const double flops = pt::kernel_flops(g, g.find("op"));
  CHECK(flops == 2 * 1296);
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d, peaks).seconds == pt::test::relative(flops / 1e11));
}

TEST_CASE("a convolution_backward's two kernels each read the output gradient (split_convolution_backward)") {
  // Dense 3x3, float32: grad_output, x and grad_input 800 bytes each, the
  // weight and its gradient 576. Bytes bound (FLOPs free): the input
  // gradient moves 800 + 576 + 800, the weight gradient 800 + 800 + 576;
  // as one kernel, the node's loads and stores once.
  const pt::Graph g = conv_backward({4, 4, 3, 3}, 1);
  pt::Device d{"test", 1e6, 1e30, 1e30};
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Subgraph pass = pt::test::whole_pass(g);
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds == pt::test::relative(2 * 2176 / 1e6));
  pt::BandwidthOptions one;
  one.split_convolution_backward = false;
  const pt::PassEstimate whole = pt::estimate_pass(g, pass, g.outputs, ops, d, one);
  CHECK(whole.seconds == pt::test::relative((whole.bytes_loaded + whole.bytes_stored) / 1e6));
  CHECK(whole.seconds < 2 * 2176 / 1e6);
}

TEST_CASE("a convolution of fewer than 8 input channels is bound by its elements and a low FLOP rate") {
  // 3 input channels, 3x3, stride 1: x [2,3,5,5] bfloat16, out [2,4,5,5]
  // (200 outputs, 2 * 200 * 27 = 10800 FLOPs).
  const std::vector<Input> in = {{"x", {2, 3, 5, 5}}, {"w", {4, 3, 3, 3}}};
  const pt::Graph g = one_op_graph(in, "aten.convolution.default",
                                   node_args({"x", "w"}) + "args { none: true } " + conv_tail(1), tensor_val({2, 4, 5, 5}));
  const auto kernels = pt::convolution_kernels(g, g.find("op"));
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].narrow);
  CHECK(kernels[0].elements == 200);
  CHECK(kernels[0].work == 10800);
  CHECK(kernels[0].pad_bytes == 0);  // float32: no padding copy
  pt::Device d{"test", 1e18, 1e30, 1e30};
  d.narrow_conv.forward = {1e-9, 1e12};
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Subgraph pass = pt::test::whole_pass(g);
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds == pt::test::relative(200 * 1e-9));
  d.narrow_conv.forward = {1e-15, 1e6};
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds == pt::test::relative(10800 / 1e6));
  pt::BandwidthOptions peaks;
  peaks.apply_device_efficiency = false;
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d, peaks).seconds < 1e-12);
  // Eight channels fill the tile: not narrow.
  const std::vector<Input> wide_in = {{"x", {2, 8, 5, 5}}, {"w", {4, 8, 3, 3}}};
  const pt::Graph wide = one_op_graph(wide_in, "aten.convolution.default",
                                      node_args({"x", "w"}) + "args { none: true } " + conv_tail(1),
                                      tensor_val({2, 4, 5, 5}));
  CHECK_FALSE(pt::convolution_kernels(wide, wide.find("op"))[0].narrow);
}

TEST_CASE("a grouped convolution runs at the device's rate for its channels per group") {
  // x [2,C,5,5] float32 into 16 output channels of 3x3 filters, stride 1:
  // 2 * 800 * (C / groups) * 9 FLOPs. Bytes cost nothing.
  const auto forward = [](int64_t channels, int groups) {
    const std::vector<Input> in = {{"x", {2, channels, 5, 5}}, {"w", {16, channels / groups, 3, 3}}};
    return one_op_graph(in, "aten.convolution.default",
                        node_args({"x", "w"}) + "args { none: true } " + conv_tail(groups), tensor_val({2, 16, 5, 5}));
  };
  pt::Device d{"test", 1e18, 1e12, 5e11};
  d.grouped_conv.forward = {{1e9, 2e9, 4e9, 8e9, 16e9}, 3e9};
  const auto ops = pt::OpClasses::pytorch_defaults();
  const auto seconds = [&](const pt::Graph& g, const pt::BandwidthOptions& o = {}) {
    return pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, ops, d, o).seconds;
  };
  const pt::Graph eight = forward(32, 4);
  REQUIRE(pt::convolution_kernels(eight, eight.find("op"))[0].group_channels == 8);
  CHECK(seconds(eight) == pt::test::relative(2.0 * 800 * 8 * 9 / 2e9));
  // One group, or over 64 channels a group: float32, at the TF32 rate.
  CHECK(seconds(forward(64, 1)) == pt::test::relative(2.0 * 800 * 64 * 9 / 5e11));
  CHECK(seconds(forward(64, 2)) == pt::test::relative(2.0 * 800 * 32 * 9 / 8e9));
  CHECK(seconds(forward(48, 2)) == pt::test::relative(2.0 * 800 * 24 * 9 / 3e9));    // 24: not a power of two
  CHECK(seconds(forward(16, 8)) == pt::test::relative(2.0 * 800 * 2 * 9 / 1e9));      // 2 channels: 4's rate
  CHECK(seconds(forward(256, 2)) == pt::test::relative(2.0 * 800 * 128 * 9 / 5e11));
  pt::BandwidthOptions peaks;
  peaks.apply_device_efficiency = false;
  CHECK(seconds(eight, peaks) == pt::test::relative(2.0 * 800 * 8 * 9 / 5e11));
  // A depthwise convolution keeps its own rule.
  CHECK(pt::convolution_kernels(forward(16, 16), forward(16, 16).find("op"))[0].group_channels == 0);
}

TEST_CASE("a grouped 16-bit layer kept NCHW runs at the NCHW rate where its channels a group are no power of two") {
  // bf16, 24 channels a group: Inductor keeps such a layer NCHW, and cuDNN
  // runs it from NCHW tensors at `other_nchw`; 32 a group keeps its rate.
  const auto forward = [](int64_t channels, int groups) {
    const std::vector<Input> in = {{"x", {2, channels, 5, 5}, "bfloat16"},
                                   {"w", {16, channels / groups, 3, 3}, "bfloat16"}};
    return one_op_graph(in, "aten.convolution.default",
                        node_args({"x", "w"}) + "args { none: true } " + conv_tail(groups),
                        tensor_val({2, 16, 5, 5}, "bfloat16"));
  };
  pt::Device d{"test", 1e18, 1e12, 5e11};
  d.grouped_conv.forward = {{1e9, 2e9, 4e9, 8e9, 16e9}, 3e9, 6e9};
  const auto ops = pt::OpClasses::pytorch_defaults();
  const auto seconds = [&](const pt::Graph& g) {
    return pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, ops, d).seconds;
  };
  CHECK(seconds(forward(48, 2)) == pt::test::relative(2.0 * 800 * 24 * 9 / 6e9));
  CHECK(seconds(forward(64, 2)) == pt::test::relative(2.0 * 800 * 32 * 9 / 8e9));
  d.grouped_conv.forward.other_nchw = 0;  // not measured: the channels-last rate
  CHECK(seconds(forward(48, 2)) == pt::test::relative(2.0 * 800 * 24 * 9 / 3e9));
}

TEST_CASE("a dense 16-bit convolution runs at the device's dense rate for its width, plus its latency") {
  // x [2,C,5,5] into K output channels of 3x3 filters, stride 1: 2 * 50K *
  // C * 9 FLOPs. Bytes cost nothing.
  const auto forward = [](int64_t channels, int64_t outputs, const std::string& dtype) {
    const std::vector<Input> in = {{"x", {2, channels, 5, 5}, dtype}, {"w", {outputs, channels, 3, 3}, dtype}};
    return one_op_graph(in, "aten.convolution.default", node_args({"x", "w"}) + "args { none: true } " + conv_tail(1),
                        tensor_val({2, outputs, 5, 5}, dtype));
  };
  pt::Device d{"test", 1e18, 1e12, 5e11};
  d.conv_efficiency = 0.5;
  d.dense_conv = {2e12, 1e-6, 64};
  const auto ops = pt::OpClasses::pytorch_defaults();
  const auto seconds = [&](const pt::Graph& g, const pt::BandwidthOptions& o = {}) {
    return pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, ops, d, o).seconds;
  };
  const pt::Graph narrow16 = forward(64, 16, "bfloat16");
  const auto k = pt::convolution_kernels(narrow16, narrow16.find("op"));
  REQUIRE(k.size() == 1);
  CHECK(k[0].width == 16);
  CHECK(k[0].half);
  // 16 of 64 channels wide: a quarter of the rate.
  CHECK(seconds(narrow16) == pt::test::relative(2.0 * 800 * 64 * 9 / 5e11 + 1e-6));
  // As wide as the full width or wider: the full rate.
  CHECK(seconds(forward(64, 64, "bfloat16")) == pt::test::relative(2.0 * 3200 * 64 * 9 / 2e12 + 1e-6));
  CHECK(seconds(forward(128, 256, "bfloat16")) == pt::test::relative(2.0 * 12800 * 128 * 9 / 2e12 + 1e-6));
  // float32 (TF32) keeps the convolution efficiency; so do the datasheet peaks.
  CHECK(seconds(forward(64, 16, "float32")) == pt::test::relative(2.0 * 800 * 64 * 9 / (5e11 * 0.5)));
  pt::BandwidthOptions peaks;
  peaks.apply_device_efficiency = false;
  CHECK(seconds(narrow16, peaks) == pt::test::relative(2.0 * 800 * 64 * 9 / 1e12));
  // Not measured: the convolution efficiency.
  d.dense_conv = {};
  CHECK(seconds(narrow16) == pt::test::relative(2.0 * 800 * 64 * 9 / (1e12 * 0.5)));
}
