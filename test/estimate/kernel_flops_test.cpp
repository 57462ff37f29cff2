// The roofline's FLOPs of convolutions (estimate/kernel_flops.h): PyTorch's
// count where it is the work done, the grouped weight gradient divided by
// `groups`, and the rate they run at; expected numbers worked out by hand.
#include <doctest/doctest.h>

#include <string>

#include "analysis/runtime_estimate.h"
#include "estimate/bandwidth_model.h"
#include "estimate/kernel_flops.h"
#include "report/graph_builder.h"
#include "support/op_graph.h"

using namespace pt::test;  // Input, node_args, one_op_graph, tensor_val, tuple_val

namespace {

// `stride`, padding 1, dilation 1, not transposed, no output padding, `groups`.
std::string conv_tail(int groups, int stride = 1) {
  const std::string s = std::to_string(stride);
  return "args { list { items { int: " + s + " } items { int: " + s + R"( } } }
            args { list { items { int: 1 } items { int: 1 } } }
            args { list { items { int: 1 } items { int: 1 } } } args { bool: false }
            args { list { items { int: 0 } items { int: 0 } } } args { int: )" +
         std::to_string(groups) + " }";
}

// convolution_backward of x [2,4,5,5] (grad_output `out`, of stride
// `stride`) with weight `w`, grad_input requested when `input_grad`,
// grad_weight always.
pt::Graph conv_backward(const std::vector<int64_t>& w, int groups, int stride = 1,
                        const std::vector<int64_t>& out = {2, 4, 5, 5}, bool input_grad = true) {
  const std::vector<Input> in = {{"go", out}, {"x", {2, 4, 5, 5}}, {"w", w}};
  return one_op_graph(in, "aten.convolution_backward.default",
                      node_args({"go", "x", "w"}) + "args { list { items { int: 4 } } } " + conv_tail(groups, stride) +
                          " args { list { items { bool: " + (input_grad ? "true" : "false") +
                          " } items { bool: true } items { bool: false } } }",
                      tuple_val({input_grad ? std::vector<int64_t>{2, 4, 5, 5} : std::vector<int64_t>{}, w, {}}));
}

}  // namespace

TEST_CASE("a depthwise weight gradient counts its own channel pairs, not every pair") {
  // Depthwise 3x3 (groups 4, w [4,1,3,3]) on 2 x 4 x 5 x 5:
  // grad_input 2 * batch 2 * c_out 4 * c_in/groups 1 * 9 * 25 = 3600;
  // grad_weight as PyTorch counts it 2 * 4 * 4 * 2 * 9 * 25 = 14400, four
  // (groups) times the 3600 multiply-adds the kernel does.
  const pt::Graph g = conv_backward({4, 1, 3, 3}, 4);
  const pt::NodeId op = g.find("op");
  CHECK(pt::count_flops(g, op) == 3600 + 14400);
  CHECK(pt::kernel_flops(g, op) == 3600 + 3600);
  CHECK(pt::is_depthwise_convolution(g, op));
}

TEST_CASE("a dense convolution keeps PyTorch's count and its tensor cores") {
  // groups 1, w [4,4,3,3]: grad_input 2*2*4*4*9*25 = 14400, grad_weight the same.
  const pt::Graph g = conv_backward({4, 4, 3, 3}, 1);
  const pt::NodeId op = g.find("op");
  CHECK(pt::kernel_flops(g, op) == pt::count_flops(g, op));
  CHECK(pt::kernel_flops(g, op) == 28800);
  CHECK_FALSE(pt::is_depthwise_convolution(g, op));
  // Two groups of two channels: grouped, but not depthwise; the weight term
  // 2*4*4*2*9*25 = 14400 counts half: 7200, beside grad_input 2*2*4*2*9*25.
  const pt::Graph grouped = conv_backward({4, 2, 3, 3}, 2);
  CHECK(pt::kernel_flops(grouped, grouped.find("op")) == 7200 + 7200);
  CHECK_FALSE(pt::is_depthwise_convolution(grouped, grouped.find("op")));
}

TEST_CASE("a depthwise forward convolution is depthwise; its count is PyTorch's") {
  const std::vector<Input> in = {{"x", {2, 4, 5, 5}}, {"w", {4, 1, 3, 3}}};
  const pt::Graph g = one_op_graph(in, "aten.convolution.default",
                                   node_args({"x", "w"}) + "args { none: true } " + conv_tail(4),
                                   tensor_val({2, 4, 5, 5}));
  const pt::NodeId op = g.find("op");
  CHECK(pt::kernel_flops(g, op) == 3600);  // 2 * 2 * 4 * 1 * 9 * 25
  CHECK(pt::is_depthwise_convolution(g, op));
}

namespace {

// Bytes cost nothing (1e18 B/s): a kernel's time is its FLOPs at the rate
// it runs at. bf16 1e12, float32 (TF32) 5e11, CUDA cores 1e11 FLOP/s.
double seconds_of(const pt::Graph& g) {
  pt::Device d{"test", 1e18, 1e12, 5e11};
  d.vector_flops_per_second = 1e11;
  return pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, pt::OpClasses::pytorch_defaults(), d).seconds;
}

}  // namespace

TEST_CASE("a float32 convolution_backward runs at the TF32 rate, a depthwise one on the CUDA cores") {
  // The tuple has no dtype of its own: its float32 inputs make it TF32.
  CHECK(seconds_of(conv_backward({4, 4, 3, 3}, 1)) == doctest::Approx(28800 / 5e11));
  CHECK(seconds_of(conv_backward({4, 1, 3, 3}, 4)) == doctest::Approx(7200 / 1e11));
}

TEST_CASE("a depthwise backward is two kernels; the input gradient visits every tap of every input element") {
  // 3x3, stride 2: x [2,4,5,5] (200 elements), grad_output [2,4,3,3] (72).
  // The weight gradient does 2 * 9 * 72 = 1296 FLOPs, the forward's count;
  // the input gradient 2 * 9 * 200 = 3600 units, about s^2 = 4 times it.
  const pt::Graph g = conv_backward({4, 1, 3, 3}, 4, 2, {2, 4, 3, 3});
  const auto kernels = pt::convolution_kernels(g, g.find("op"));
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].kernel == pt::ConvolutionKernel::InputGradient);
  CHECK(kernels[0].work == 3600);
  CHECK(kernels[0].bytes == 4 * (72 + 36 + 200));  // reads grad_output and w, writes grad_input (float32)
  CHECK(kernels[1].kernel == pt::ConvolutionKernel::WeightGradient);
  CHECK(kernels[1].work == 1296);
  CHECK(kernels[1].bytes == 4 * (72 + 200 + 36));  // reads grad_output and x, writes grad_weight
  // Only the weight gradient asked for: one kernel.
  const pt::Graph weight_only = conv_backward({4, 1, 3, 3}, 4, 2, {2, 4, 3, 3}, false);
  const auto one = pt::convolution_kernels(weight_only, weight_only.find("op"));
  REQUIRE(one.size() == 1);
  CHECK(one[0].kernel == pt::ConvolutionKernel::WeightGradient);
  // Dense: the same two kernels, each PyTorch's FLOP term (2*2*4*4*9*25 = 14400).
  const pt::Graph dense = conv_backward({4, 4, 3, 3}, 1);
  const auto both = pt::convolution_kernels(dense, dense.find("op"));
  REQUIRE(both.size() == 2);
  CHECK(both[0].work == 14400);
  CHECK(both[1].work == 14400);
}

TEST_CASE("each depthwise kernel takes its work at its rate or its bytes at its bandwidth, whichever is longer") {
  const pt::Graph g = conv_backward({4, 1, 3, 3}, 4, 2, {2, 4, 3, 3});
  pt::Device d{"test", 1e18, 1e12, 5e11};
  d.vector_flops_per_second = 1e11;
  d.depthwise = {{1, 1}, {0.5, 1}, {0.25, 1}};
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Subgraph pass = pt::test::whole_pass(g);
  // Bytes free: input gradient 3600 / 5e10, weight gradient 1296 / 2.5e10.
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds == doctest::Approx(3600 / 5e10 + 1296 / 2.5e10));
  // Work free: each kernel's bytes at its fraction of the bandwidth.
  d.vector_flops_per_second = 1e30;
  d.bytes_per_second = 1e6;
  d.depthwise = {{1, 1}, {1, 0.5}, {1, 0.25}};
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds ==
        doctest::Approx(4 * 308 / 5e5 + 4 * 308 / 2.5e5));
  // At the datasheet peaks: PyTorch's FLOPs (the weight term per group) at
  // the CUDA-core peak, and no less than the node's bytes.
  pt::BandwidthOptions peaks;
  peaks.apply_device_efficiency = false;
  d.vector_flops_per_second = 1e11;
  d.bytes_per_second = 1e18;
  const double flops = pt::kernel_flops(g, g.find("op"));
  CHECK(flops == 2 * 1296);
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d, peaks).seconds == doctest::Approx(flops / 1e11));
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
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds == doctest::Approx(2 * 2176 / 1e6));
  pt::BandwidthOptions one;
  one.split_convolution_backward = false;
  const pt::PassEstimate whole = pt::estimate_pass(g, pass, g.outputs, ops, d, one);
  CHECK(whole.seconds == doctest::Approx((whole.bytes_loaded + whole.bytes_stored) / 1e6));
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
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds == doctest::Approx(200 * 1e-9));
  d.narrow_conv.forward = {1e-15, 1e6};
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds == doctest::Approx(10800 / 1e6));
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
