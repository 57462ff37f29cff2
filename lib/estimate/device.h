// The device a bandwidth estimate is made for (docs/design.md section 6): memory
// bandwidth for every kernel, and peak FLOP/s for compute-intensive ops.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "estimate/attention_rate.h"

namespace pt {

// How fast one of cuDNN's depthwise kernels runs (kernel_flops.h's
// depthwise_kernels): its work at this fraction of the CUDA-core peak
// (Device::vector_flops_per_second), its bytes at this fraction of the
// achieved copy bandwidth (bytes_per_second x memory_efficiency), whichever
// takes longer. 1, 1: not measured.
struct DepthwiseRate {
  double flops_fraction = 1;
  double bandwidth_fraction = 1;
};

// One rate per kernel: the forward, the input gradient and the weight
// gradient are different kernels (conv2d, dgrad2d and wgrad2d_c1_k1_nhwc on
// Hopper) that reach different rates.
struct DepthwiseRates {
  DepthwiseRate forward, input_gradient, weight_gradient;
};

// Convolutions of fewer than 8 input channels per group (an image's colour
// channels; kernel_flops.h's ConvolutionWork::narrow): one kernel takes at
// least its elements (the forward's outputs, the output gradient a weight
// gradient reads) at `seconds_per_element`, and at least its FLOPs at
// `flops_per_second`. 0: not measured.
struct NarrowKernelRate {
  double seconds_per_element = 0;
  double flops_per_second = 0;
};
struct NarrowConvolution {
  NarrowKernelRate forward, weight_gradient;
  bool measured() const {
    return forward.seconds_per_element > 0 || forward.flops_per_second > 0 ||
           weight_gradient.seconds_per_element > 0 || weight_gradient.flops_per_second > 0;
  }
};

// Grouped convolutions of 2 to 64 input channels per group, not depthwise
// (kernel_flops.h's ConvolutionWork::group_channels): cuDNN's grouped
// kernels reach far less than a dense convolution's rate, set by the
// channels a group. A kernel's FLOP/s at 4, 8, 16, 32 and 64 channels a
// group (`by_power_of_two`; 2 at 4's) and `other` at a count that is not a
// power of two, which cuDNN runs far slower still from channels-last
// tensors; `other_nchw` at such a count from NCHW tensors (a layer
// Inductor keeps NCHW, nchw_conversions.h), which cuDNN runs faster
// between its layout conversions (0: `other`). Zeros: not measured, the
// convolution rate.
struct GroupedKernelRate {
  std::array<double, 5> by_power_of_two{};
  double other = 0;
  double other_nchw = 0;
};
struct GroupedConvolution {
  GroupedKernelRate forward, input_gradient, weight_gradient;
  bool measured() const { return forward.other > 0; }
};

// Dense 16-bit convolutions (one group, or more than 64 input channels a
// group; at least 8 input channels): each of cuDNN's kernels takes its
// FLOPs at `flops_per_second`, scaled by w / full_width_channels below
// that width, where w is the kernel's width (kernel_flops.h: the narrower
// output side of its GEMM), plus `latency_seconds` beyond every kernel's,
// or its bytes, whichever is longer. Zeros: not measured, the convolution
// efficiency.
struct DenseConvolution {
  double flops_per_second = 0;
  double latency_seconds = 0;
  int64_t full_width_channels = 0;
  // How many times its channels-last time each kernel of a misaligned NCHW
  // GEMM takes (nchw_conversions.h); 0: not measured.
  double misaligned_nchw = 0;
  bool measured() const { return flops_per_second > 0; }
};

// Reductions across rows (column_reduction.h): a kernel holding one whose
// rows are R contiguous bytes moves its bytes as if each row were
// `row_overhead_bytes` longer, at R / (R + row_overhead_bytes) of the copy
// bandwidth. A backward kernel holding one the backward recomputes takes
// `recomputed_seconds` more (BandwidthOptions::
// recomputed_reductions_read_cold). 0: not measured.
struct ColumnReduction {
  double row_overhead_bytes = 0;
  double recomputed_seconds = 0;
};

struct Device {
  std::string name;               // "h100", or the number as given
  double bytes_per_second = 0;    // HBM bandwidth
  double flops_per_second = 0;    // dense bf16 tensor-core peak, for compute-intensive ops
  double fp32_flops_per_second = 0;  // the same for float32 outputs (TF32 tensor cores: half the bf16 rate)
  // Fractions of those peaks that kernels achieve, measured on the device
  // (1: not measured, the roofline runs at the peaks). The bandwidth model
  // divides by peak x efficiency unless BandwidthOptions::apply_device_efficiency
  // is off.
  double memory_efficiency = 1;
  double matmul_efficiency = 1;
  // Seconds per element of one erf and of one exp in a fused kernel (the
  // kernel's arithmetic floor, bandwidth_model.h), measured on the device;
  // 0: not measured, fused kernels cost their bytes only.
  double erf_seconds = 0;
  double exp_seconds = 0;
  // Rows of at most this many bytes that a kernel reads again right after a
  // reduction over them come from the cache (bandwidth_model.h); 0: not
  // measured, every load costs bandwidth.
  uint64_t cached_row_bytes = 0;
  // Fused attention's rate by sequence length and head size
  // (estimate/attention_rate.h); zeros: not measured, the matmul rate.
  AttentionRates attention;
  // The matmul efficiency's counterpart for convolutions (cuDNN's implicit
  // GEMMs, forward and backward), which reach far less of the tensor-core
  // peak than a large matmul does; 1: not measured.
  double conv_efficiency = 1;
  // CUDA-core (non-tensor) float32 FMA peak, for convolutions too small a
  // matrix for tensor cores (depthwise, kernel_flops.h); 0: not known, they
  // run at the convolution rate. With the rates its kernels reach, measured
  // as conv_efficiency is.
  double vector_flops_per_second = 0;
  DepthwiseRates depthwise;
  // Seconds per element that ATen's index_add adds into its output with a
  // scalar atomic (Inductor leaves aten.index_add to ATen), beyond the
  // kernel's bytes; 0: not measured, it costs its bytes only.
  double atomic_add_seconds = 0;
  // Convolutions of too few input channels for the tensor cores
  // (NarrowConvolution above); zeros: not measured.
  NarrowConvolution narrow_conv;
  // Short-row column reductions (ColumnReduction above).
  ColumnReduction column_reduction;
  // TF32 matmuls' fraction of fp32_flops_per_second; 0: matmul_efficiency.
  double fp32_matmul_efficiency = 0;
  double fp32_matmul_rate_fraction() const {
    return fp32_matmul_efficiency > 0 ? fp32_matmul_efficiency : matmul_efficiency;
  }
  // The fraction of its peak a compute-intensive kernel reaches: a
  // convolution's, or a matmul's (TF32's for float32).
  double compute_rate_fraction(bool convolution, bool fp32) const {
    return convolution ? conv_efficiency : fp32 ? fp32_matmul_rate_fraction() : matmul_efficiency;
  }
  // Seconds every kernel takes beyond its bytes or FLOPs (its start and the
  // tail of its last wave), and a cuBLAS matmul's in its place; 0: not
  // measured.
  double kernel_latency_seconds = 0;
  double matmul_latency_seconds = 0;
  // Grouped convolutions (GroupedConvolution above); zeros: not measured.
  GroupedConvolution grouped_conv;
  // Streaming multiprocessors, for Inductor's choice to split a reduction
  // into two kernels (column_reduction.h); 0: not known, none is split.
  int multiprocessors = 0;
  // Dense 16-bit convolutions (DenseConvolution above); zeros: not measured.
  DenseConvolution dense_conv;
  // The fraction of the achieved copy bandwidth (bytes_per_second x
  // memory_efficiency) that cuDNN's nchwToNhwc and nhwcToNchw kernels reach
  // around a convolution kept NCHW (nchw_conversions.h); 0: not measured,
  // not costed.
  double nchw_conversion_fraction = 0;
  // Seconds of one window tap of a fused pooling gradient
  // (inductor_fusible.h), a floor on its kernel (kernel_arithmetic.h); 0:
  // not measured, its bytes only.
  double pool_tap_seconds = 0;
};

// Presets (datasheet numbers, SXM parts; docs/design.md section 6):
//   a100  1.555e12 B/s (A100 40GB),  312e12 FLOP/s dense bf16, 156e12 TF32
//   h100  3.35e12 B/s  (H100 SXM),   989e12 FLOP/s dense bf16, 494e12 TF32
//   h200  4.8e12 B/s   (H200 SXM),   989e12 FLOP/s dense bf16 (same compute as H100)
// h100 and h200 run at fractions of those peaks measured on one card of each
// (device.cpp; docs/prediction_accuracy.md, docs/bandwidth_model.md): memory
// 0.89 (H100) and 0.88 (H200) of the bandwidth (a 3.3 GB device copy),
// matmuls 0.70 of the bf16 peak and 0.55 of TF32's plus 4 us each, any
// other kernel 2 us (cuBLAS over a grid of linear layers, kernel_rates.py),
// float32 (TF32) convolutions 0.30 (cuDNN's kernels of a ResNet-50 step),
// 16-bit ones 680e12 FLOP/s by width plus 4 us (kernel_rates.py); for fused kernels,
// 1.59e-12 s per erf and 0.61e-12 s per exp element (Inductor's GELU kernels
// on mlp_gelu_ln), rows up to 128 KiB read again after their reduction from
// the cache, and cuDNN attention's rates by sequence length and head size
// (attention_rate.h). a100 was not measured and runs at its peaks;
// one measured preset, what an H200 achieved (docs/bandwidth_model.md):
//   h200-measured  4.2e12 B/s (a 3.3 GB copy), 616e12 FLOP/s (a bf16 matmul
//                  of linear_ce's logits shape), 300e12 FLOP/s fp32 (TF32)
// or "<bytes-per-second>[:<flops-per-second>]" ("2e12", "2e12:400e12"); a bare
// bandwidth keeps h100's peak FLOP/s; float32 runs at half the given rate.
// CUDA-core float32 peaks (depthwise convolutions): a100 19.5e12, h100 and
// h200 67e12; on h100 and h200 cuDNN's depthwise kernels reach 0.16
// (forward), 0.083 (input gradient) and 0.20 (weight gradient) of it, or
// move their bytes at 0.58, 0.58 and 0.195 of the copy bandwidth
// (device.cpp).
// Throws SettingsError for anything else.
Device parse_device(std::string_view text);

// The preset names, for help texts.
std::string device_presets_text();

}  // namespace pt
