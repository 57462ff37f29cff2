#include "estimate/convolution_time.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "estimate/kernel_flops.h"
#include "estimate/nchw_conversions.h"

namespace pt {

namespace {

const DepthwiseRate& depthwise_rate(const Device& device, ConvolutionKernel k) {
  return k == ConvolutionKernel::Forward         ? device.depthwise.forward
         : k == ConvolutionKernel::InputGradient ? device.depthwise.input_gradient
                                                 : device.depthwise.weight_gradient;
}

// Kernel `k` of a narrow convolution at the device's measured rates: no
// faster than its elements and its FLOPs, after its padding copy. Input
// gradients were not measured: their time stands.
double narrow_seconds(const ConvolutionWork& k, double t, const Device& device, double bandwidth) {
  if (k.kernel == ConvolutionKernel::InputGradient) return t;
  const NarrowKernelRate& n =
      k.kernel == ConvolutionKernel::Forward ? device.narrow_conv.forward : device.narrow_conv.weight_gradient;
  if (n.seconds_per_element <= 0 && n.flops_per_second <= 0) return t;
  if (n.seconds_per_element > 0) t = std::max(t, k.elements * n.seconds_per_element);
  if (n.flops_per_second > 0) t = std::max(t, k.work / n.flops_per_second);
  return t + k.pad_bytes / bandwidth;
}

const GroupedKernelRate& grouped_rate(const Device& device, ConvolutionKernel k) {
  return k == ConvolutionKernel::Forward         ? device.grouped_conv.forward
         : k == ConvolutionKernel::InputGradient ? device.grouped_conv.input_gradient
                                                 : device.grouped_conv.weight_gradient;
}

// FLOP/s of a grouped kernel of `channels` per group (at most 64): the
// measured rate at a power of two (2 channels at 4's), the `other` rate
// elsewhere (`other_nchw` for a layer kept NCHW, where measured).
double grouped_flops_per_second(const GroupedKernelRate& r, int64_t channels, bool nchw) {
  if ((channels & (channels - 1)) != 0) return nchw && r.other_nchw > 0 ? r.other_nchw : r.other;
  size_t at = 0;  // 4 channels or fewer: 0, 64: 4
  for (int64_t c = 4; c < channels && at + 1 < r.by_power_of_two.size(); c *= 2) ++at;
  return r.by_power_of_two[at];
}

// Above 64 channels a group no grouped kernel was measured: such layers
// run at the convolution rate.
constexpr int64_t kMostGroupChannels = 64;

// One dense 16-bit kernel's compute: its FLOPs at the measured rate, slower
// below the full width in proportion to it, plus its latency.
double dense_seconds(double work, int64_t width, const DenseConvolution& d) {
  const double full = static_cast<double>(d.full_width_channels);
  const double scale = full > 0 ? std::min(1.0, static_cast<double>(width) / full) : 1.0;
  return work / (d.flops_per_second * scale) + d.latency_seconds;
}

}  // namespace

double convolution_seconds(const Graph& g, NodeId op, double flops, double rate, const Device& device,
                           const BandwidthOptions& o, const Flags& channels_last, double* misaligned_out) {
  if (misaligned_out) *misaligned_out = 1;
  const bool derate = o.apply_device_efficiency;
  const bool depthwise = device.vector_flops_per_second > 0 && is_depthwise_convolution(g, op);
  if (depthwise && !derate) return flops / device.vector_flops_per_second;
  const std::vector<ConvolutionWork> kernels = convolution_kernels(g, op);
  const bool narrow = derate && device.narrow_conv.measured() &&
                      std::any_of(kernels.begin(), kernels.end(), [](const auto& k) { return k.narrow; });
  const bool grouped = derate && device.grouped_conv.measured() &&
                       std::any_of(kernels.begin(), kernels.end(), [](const auto& k) {
                         return k.group_channels > 0 && k.group_channels <= kMostGroupChannels;
                       });
  const bool split = o.split_convolution_backward && g[op].packet == "aten.convolution_backward";
  // Dense 16-bit layers: by their width, at the device's measured rate
  // (Device::dense_conv); float32 (TF32) keeps the convolution efficiency.
  const bool dense = derate && device.dense_conv.measured() && !depthwise && !narrow && !grouped &&
                     !kernels.empty() && std::all_of(kernels.begin(), kernels.end(), [](const auto& k) {
                       return k.half && !k.narrow && k.width > 0;
                     });
  // A 1x1 layer Inductor leaves NCHW at a pixel count that is not a
  // multiple of 8: every kernel slower by the device's measured factor
  // (nchw_conversions.h). Off: nchw_misaligned_gemms=false.
  const double misaligned = dense && o.nchw_misaligned_gemms && device.dense_conv.misaligned_nchw > 0 &&
                                    misaligned_nchw_gemm(g, op, channels_last)
                                ? device.dense_conv.misaligned_nchw
                                : 1.0;
  if (misaligned_out) *misaligned_out = misaligned;
  if (dense && !split) return misaligned * dense_seconds(flops, kernels.front().width, device.dense_conv);
  if (kernels.empty() || !(depthwise || narrow || grouped || split || dense)) {
    return flops / (depthwise ? device.vector_flops_per_second : rate);
  }
  const double bandwidth = device.bytes_per_second * (derate ? device.memory_efficiency : 1.0);
  const bool nchw = grouped && converts_nchw_layout(g, op, channels_last);
  double seconds = 0;
  for (const ConvolutionWork& k : kernels) {
    double t = std::max(k.work / rate, k.bytes / bandwidth);
    if (depthwise) {
      const DepthwiseRate& r = depthwise_rate(device, k.kernel);
      t = std::max(k.work / (device.vector_flops_per_second * r.flops_fraction),
                   k.bytes / (bandwidth * r.bandwidth_fraction));
    }
    if (grouped && k.group_channels > 0 && k.group_channels <= kMostGroupChannels) {
      const double rate_here = grouped_flops_per_second(grouped_rate(device, k.kernel), k.group_channels, nchw);
      t = std::max(k.work / rate_here, k.bytes / bandwidth);
    } else if (k.narrow && narrow) {
      t = narrow_seconds(k, t, device, bandwidth);
    } else if (dense) {
      t = misaligned * std::max(dense_seconds(k.work, k.width, device.dense_conv), k.bytes / bandwidth);
    }
    seconds += t;
  }
  return seconds;
}

}  // namespace pt
