// The roofline's FLOPs of convolutions (estimate/kernel_flops.h): PyTorch's
// count where it is the work done, the grouped weight gradient divided by
// `groups`, and the kernels cuDNN runs; expected numbers worked out by hand.
#include <doctest/doctest.h>

#include <string>

#include "analysis/runtime_estimate.h"
#include "estimate/conv_graphs.h"
#include "estimate/kernel_flops.h"

using namespace pt::test;  // conv_backward, conv_tail, Input, node_args, one_op_graph, tensor_val

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

TEST_CASE("each convolution kernel's width is its GEMM's narrower output side") {
  // x [2,4,5,5] into 16 channels. The input gradient writes the 4 input
  // channels; the weight gradient is 16 outputs by 4 x taps inputs.
  const pt::Graph one_by_one = conv_backward({16, 4, 1, 1}, 1, 1, {2, 16, 5, 5});
  const auto k = pt::convolution_kernels(one_by_one, one_by_one.find("op"));
  REQUIRE(k.size() == 2);
  CHECK(k[0].kernel == pt::ConvolutionKernel::InputGradient);
  CHECK(k[0].width == 4);
  CHECK(k[1].kernel == pt::ConvolutionKernel::WeightGradient);
  CHECK(k[1].width == 4);   // min(16, 4 x 1)
  const pt::Graph three_by_three = conv_backward({16, 4, 3, 3}, 1, 1, {2, 16, 5, 5});
  CHECK(pt::convolution_kernels(three_by_three, three_by_three.find("op"))[1].width == 16);  // min(16, 4 x 9)
  // The forward writes its output channels: 4 into 16 is 16 wide.
  const std::vector<Input> in = {{"x", {2, 4, 5, 5}}, {"w", {16, 4, 3, 3}}};
  const pt::Graph forward = one_op_graph(in, "aten.convolution.default",
                                         node_args({"x", "w"}) + "args { none: true } " + conv_tail(1),
                                         tensor_val({2, 16, 5, 5}));
  CHECK(pt::convolution_kernels(forward, forward.find("op"))[0].width == 16);
}
