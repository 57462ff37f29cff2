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

// The kernels cuDNN runs for a convolution node, each with the work and
// bytes it is timed by (pass_cost.cpp): a forward is one kernel, reading
// the input and the weight and writing the output; a convolution_backward
// runs one kernel per gradient its output_mask asks for, the input
// gradient's (dgrad: reads the output gradient and the weight, writes the
// input gradient) and the weight gradient's (wgrad: reads the output
// gradient and the input, writes the weight gradient), so the output
// gradient is read twice. Their work: PyTorch's FLOP terms (the weight
// term per group, as kernel_flops), except for a depthwise convolution's
// input gradient, whose kernel visits every filter tap for every
// input-gradient element, 2 k^2 units each (k^2 the taps): s^2 times the
// forward's FLOPs at stride s, of which only the taps that meet an output
// contribute (MobileNetV3's dgrad kernels, four layers of stride 2, ran at
// ConvNeXt-T's rate per unit counted so, at half of it per FLOP). Empty
// for other nodes, or where shapes cannot be read.
//
// `narrow`: fewer than 8 input channels per group (an image's 3 colour
// channels), too few for a tensor-core tile's reduction axis; such kernels
// are bound by their output-side elements (Device::narrow_conv), and
// cuDNN's 16-bit kernels first copy the input with its channels padded to 8
// (`pad_bytes`, that copy's loads and stores). `elements`: the output
// elements of a forward, the output-gradient elements a weight gradient
// reads, the input-gradient elements an input gradient writes.
// `group_channels`: the input channels per group of a grouped convolution
// that is not depthwise (Device::grouped_conv), else 0. `width`: the
// narrower output side of the kernel's GEMM, per group: a forward's output
// channels, an input gradient's input channels, a weight gradient's output
// channels or input channels x filter taps, whichever is fewer; `half`: a
// 16-bit input (Device::dense_conv).
enum class ConvolutionKernel { Forward, InputGradient, WeightGradient };
struct ConvolutionWork {
  ConvolutionKernel kernel;
  double work = 0;   // FLOPs (above)
  double bytes = 0;  // loaded and stored
  double elements = 0;
  bool narrow = false;
  double pad_bytes = 0;
  int64_t group_channels = 0;
  int64_t width = 0;
  bool half = false;
};
std::vector<ConvolutionWork> convolution_kernels(const Graph& g, NodeId id);

}  // namespace pt
