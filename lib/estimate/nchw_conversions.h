// cuDNN's layout conversions around 16-bit convolutions that Inductor
// leaves NCHW (where its layout optimization does not apply,
// inductor_layout.h). cuDNN's tensor-core kernels for a filter wider than
// 1x1 are NHWC kernels: around each it launches nchwToNhwc for every tensor
// the kernel reads and nhwcToNchw for the one it writes (a 1x1 filter of
// stride 1 runs as a GEMM on the NCHW tensors, with no conversion; one of
// stride 2 converts its activations, not its filter: ResNet's downsamples
// took 132-147 us and 40-45 us longer in NCHW, the rule charges 144 and 43). DenseNet-121 in NCHW
// (bf16, B=64, one H100) spent 3.9 ms of its 22.8 ms step in 610 such
// kernels around its 59 wider convolutions' 176 kernels; uncosted, its step
// came out 36% under.
#pragma once

#include "estimate/bandwidth_options.h"
#include "estimate/device.h"
#include "graph/flags.h"
#include "graph/graph.h"

namespace pt {

// Whether convolution `op` (aten.convolution or convolution_backward) runs
// between cuDNN's layout conversions: a 16-bit input that Inductor lays out
// NCHW (`channels_last`: channels_last_values), more than one channel, a
// filter wider than 1x1 or a stride over 1.
bool converts_nchw_layout(const Graph& g, NodeId op, const Flags& channels_last);

// Whether convolution `op` is a 1x1 filter of stride 1 on a 16-bit input
// that Inductor lays out NCHW, at a pixel count (its input's height x
// width) that is not a multiple of 8: cuBLAS and CUTLASS then run its GEMMs
// at 2- or 1-element alignment (DenseNet-121's 1x1 layers at 14x14 and
// 7x7, 2.1-4.5x their channels-last time).
bool misaligned_nchw_gemm(const Graph& g, NodeId op, const Flags& channels_last);

// Seconds of those conversions for `op` (0 where it has none): each of its
// kernels (the forward; the input and the weight gradient a backward
// computes) reads and writes every tensor it loads and stores once more, at
// Device::nchw_conversion_fraction of the copy bandwidth, in one kernel a
// tensor (Device::kernel_latency_seconds each). 0 where the device has no
// measured fraction or BandwidthOptions::nchw_layout_conversions is off.
double nchw_conversion_seconds(const Graph& g, NodeId op, const Flags& channels_last, const Device& device,
                               const BandwidthOptions& o);

}  // namespace pt
