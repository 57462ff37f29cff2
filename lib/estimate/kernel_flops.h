// The FLOPs a non-fusible op's kernel executes, for the roofline
// (bandwidth_model.h), and whether they run on tensor cores. PyTorch's FLOP
// counts (analysis/runtime_estimate.h) stay what the memory-budget solver
// ranks recomputation by; here they are corrected where they miscount the
// work a kernel does.
#pragma once

#include <cstdint>

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

}  // namespace pt
