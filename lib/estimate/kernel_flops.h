// The FLOPs a non-fusible op's kernel executes, for the roofline
// (bandwidth_model.h), and whether they run on tensor cores. PyTorch's FLOP
// counts (analysis/runtime_estimate.h) stay what the memory-budget solver
// ranks recomputation by; here they are corrected where they miscount the
// work a kernel does.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace pt {

// count_flops_if_readable, except aten.convolution_backward of a grouped
// convolution: PyTorch's formula counts the weight gradient as if every
// output channel read every input channel (groups times its work; 768 times
// for a depthwise layer of 768 channels), so that term is divided by
// `groups` here. 0 where the shapes cannot be read. A double, as every FLOP
// total: exact below 2^53, never wrapped above.
double kernel_flops(const Graph& g, NodeId id);

// A convolution (forward or backward) with one input channel per group
// (depthwise, groups > 1): each output element is a short dot product over
// the filter window alone, too small a matrix for tensor cores; cuDNN runs
// it on the CUDA cores (its conv2d_c1_k1_nhwc kernels).
bool is_depthwise_convolution(const Graph& g, NodeId id);

// The kernels cuDNN runs for a depthwise convolution node, each with the
// work and bytes it is timed by (pass_cost.cpp, Device::depthwise): a
// forward reads the input and writes the output, 2 k^2 FLOPs an output
// element (k^2 the filter's taps); a backward runs an input-gradient kernel
// and a weight-gradient kernel, as its output_mask asks. The input gradient
// visits every filter tap for every input-gradient element, 2 k^2 work
// units each: s^2 times the forward's FLOPs at stride s, of which only the
// taps that meet an output contribute (MobileNetV3's dgrad kernels, four
// layers of stride 2, ran at ConvNeXt's rate per unit counted so, at half of
// it per FLOP). It reads the output gradient and writes the input's; the
// weight gradient reads both the output gradient and the input, 2 k^2
// FLOPs an output element. Empty for other nodes, or where shapes cannot be
// read.
enum class DepthwiseKernel { Forward, InputGradient, WeightGradient };
struct DepthwiseWork {
  DepthwiseKernel kernel;
  double work = 0;   // FLOP-like units (above)
  double bytes = 0;  // loaded and stored
};
std::vector<DepthwiseWork> depthwise_kernels(const Graph& g, NodeId id);

}  // namespace pt
