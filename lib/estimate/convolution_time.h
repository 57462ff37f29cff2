// The compute time of a convolution node (aten.convolution or
// convolution_backward) on a device, for the bandwidth model's roofline
// (pass_cost.cpp): as the kernels cuDNN runs for it (kernel_flops.h's
// convolution_kernels), each bound by its work or its bytes, whichever is
// longer, where the device or the options say how they differ from one
// kernel of the node's FLOPs at the convolution rate:
//   - a depthwise convolution runs on the CUDA cores whatever the dtype, at
//     the device's rates per kernel (Device::depthwise); at the datasheet
//     peaks (apply_device_efficiency off), its FLOPs at the CUDA-core peak;
//   - a convolution_backward runs one kernel per gradient, each reading
//     the output gradient (BandwidthOptions::split_convolution_backward);
//   - a convolution of fewer than 8 input channels per group is no faster
//     than its elements and its FLOPs at the device's measured rates, after
//     the copy of its 16-bit input padded to 8 channels
//     (Device::narrow_conv; off with the other efficiencies);
//   - a grouped convolution of at most 64 input channels per group (not
//     depthwise) runs at the device's grouped rate for its channels per
//     group, and for its layout where it is kept NCHW (Device::grouped_conv;
//     off with the other efficiencies);
//   - any other convolution of a 16-bit input runs at the device's dense
//     rate for its width, each kernel no faster than its bytes
//     (Device::dense_conv; off with the other efficiencies); a 1x1 layer
//     left NCHW at a pixel count that is not a multiple of 8 takes the
//     device's misaligned_nchw times that (nchw_conversions.h).
#pragma once

#include "estimate/bandwidth_options.h"
#include "estimate/device.h"
#include "graph/flags.h"
#include "graph/graph.h"

namespace pt {

// Seconds of convolution `op`'s compute: `flops` at `rate` (the device's
// convolution rate for its dtype, derated unless apply_device_efficiency is
// off) as one kernel, or its kernels' times as above. The caller takes the
// larger of this and the node's bytes. `channels_last`: the graph's
// channels_last_values (inductor_layout.h). `misaligned`, when given,
// receives the factor a misaligned NCHW GEMM multiplied the time by (1:
// none), so the caller can tell what the NCHW layout added.
double convolution_seconds(const Graph& g, NodeId op, double flops, double rate, const Device& device,
                           const BandwidthOptions& o, const Flags& channels_last, double* misaligned = nullptr);

}  // namespace pt
