#include "estimate/device.h"

#include <charconv>
#include <cmath>

#include "graph/errors.h"

namespace pt {

namespace {

struct Preset {
  std::string_view name;
  double bytes_per_second;
  double flops_per_second;
  double fp32_flops_per_second;
  double memory_efficiency = 1;
  double matmul_efficiency = 1;
  double erf_seconds = 0;
  double exp_seconds = 0;
  uint64_t cached_row_bytes = 0;
  AttentionRates attention{};
  double conv_efficiency = 1;
  double vector_flops_per_second = 0;
  DepthwiseRates depthwise{};
  double atomic_add_seconds = 0;
  NarrowConvolution narrow_conv{};
  ColumnReduction column_reduction{};
  double fp32_matmul_efficiency = 0;
  double kernel_latency_seconds = 0;
  double matmul_latency_seconds = 0;
  GroupedConvolution grouped_conv{};
  int multiprocessors = 0;
  DenseConvolution dense_conv{};
  double nchw_conversion_fraction = 0;
  double pool_tap_seconds = 0;
};

// cuDNN attention (attention_rate.h), fitted to the H200's kernel times at
// 128-2048 tokens, head sizes 64 and 128 (python/tools/attention_bench.py):
// rate at long sequences for d = 64 and 128, and the half-rate length;
// causal counts the whole S x S square, as the FLOP formula does. The H100
// is the same chip (GH100, 132 SMs at 1980 MHz) with slower memory; these
// kernels are compute-bound, so it carries the same fits.
constexpr AttentionRates kHopperAttention = {
    {490e12, 700e12, 170}, {510e12, 630e12, 430}, {830e12, 1190e12, 380}, {840e12, 1120e12, 790}};

// Convolutions on Hopper (docs/prediction_accuracy.md): cuDNN's kernels of a
// ResNet-50 step (B=64, channels-last) took 10.7 ms for 1.56 TFLOP in TF32
// and 4.8 ms in bf16 on one H100, about 0.3 of the tensor-core peaks where a
// large matmul reaches 0.7; the roofline at the matmul efficiency
// under-predicted the step by a third. Off with the other efficiencies.
constexpr double kHopperConvEfficiency = 0.30;

// Depthwise convolutions on Hopper run on the CUDA cores (67e12 float32
// FLOP/s on the SXM parts), in three cuDNN kernels per layer: conv2d,
// dgrad2d and wgrad2d_c1_k1_nhwc (kernel_flops.h's depthwise_kernels), each
// bound by its work or by its bytes. Their work rates are ConvNeXt-T's
// (B=64, bf16, channels-last, 7x7 filters, stride 1: 13.45 GFLOP per
// direction, too many per byte to be bound by bytes) on one H100: forward
// 1252 us (0.16 of the peak), input gradient 2415 us (0.083), weight
// gradient 1008 us with its reduction kernel (0.20). Their bandwidth
// fractions are MobileNetV3-Large's (B=128, bf16, channels-last, 3x3 and
// 5x5 filters, 16-960 channels, four layers of stride 2), whose 3x3 layers
// do 2-5 FLOP a byte: forward 641 us, where the work rate alone gives 438 us
// (its bytes move at 0.58 of the copy bandwidth), weight gradient 1664 us
// (0.195; two of its 16 calls, 870 us, are wgrad2d_grouped_direct). Its
// input gradient, counted per input-gradient tap, ran at 5.77e12 FLOP/s
// against ConvNeXt's 5.57e12: bound by its work, whose bandwidth fraction
// is taken as the forward's. Off with the other efficiencies (then one
// kernel of PyTorch's FLOPs at the peak).
constexpr double kHopperVectorFlops = 67e12;
constexpr DepthwiseRates kHopperDepthwise = {{0.16, 0.58}, {0.083, 0.58}, {0.20, 0.195}};

// Convolutions of 3 input channels on Hopper (the stems of ResNet-50,
// MobileNetV3-Large, ConvNeXt-T and ViT-B/16 on one H100): a tensor-core
// tile's reduction axis is the filter's taps times 3 channels, and cuDNN's
// kernels for them (sm80 fprop "wo_smem", convolve_common_engine_float_NHWC,
// cutlass fprop and implicit-GEMM wgrad) run at about
// 0.27e12 FLOP/s per unit of that axis, up to about 37e12 FLOP/s, in bf16
// and fp32 alike, where the convolution rate charged them 300e12 (bf16).
// That is, the least of: forward 7.6 and 7.1 ps per output element
// (ResNet-50 bf16 and fp32, 7x7 stride 2, axis 147), 9.1 (MobileNetV3,
// 3x3, axis 27), 6.9 (ConvNeXt, 4x4, axis 48); 38.7, 41.3 and 31.5e12
// FLOP/s (ResNet-50 bf16, fp32, ViT's 16x16 patches, axis 768). Weight
// gradient: 4.5, 4.8, 4.7 ps per output-gradient element (ConvNeXt 2.3),
// 66, 62 and 94e12 FLOP/s (ResNet-50 bf16, fp32, ViT). Their 16-bit kernels
// first copy the input padded to 8 channels (nhwcAddPaddingKernel, 56 and
// 28 us a call on MobileNetV3 and ConvNeXt). Off with the other
// efficiencies.
constexpr NarrowConvolution kHopperNarrowConv = {{7.5e-12, 37e12}, {4.5e-12, 64e12}};

// Per-channel reductions of channels-last activations on Hopper (BatchNorm
// statistics and bias gradients; column_reduction.h), Inductor's kernels on
// one H100, as fractions of the copy bandwidth by row length (channels x
// item size): 128 bytes 0.64 (ResNet-50 bf16's stem statistics, 51.4M
// elements) and 0.67 (MobileNetV3's 64 channels at 112x112); 192 bytes
// 0.68 and 0.71 (ConvNeXt-T's bias gradients of 96 channels); 256 bytes
// 0.89 and 0.82 (ResNet-50 fp32's 64-channel statistics); 512 bytes 0.93
// (ResNet-50 bf16, 256 channels); 1024 bytes 0.94 (fp32, 256 channels).
// R / (R + 64) gives 0.67, 0.75, 0.80, 0.89 and 0.94: each row read costs
// about one 64-byte memory burst more than its bytes. Off with the other
// efficiencies.
// Those kernels read an activation the kernel before them has just written
// (a convolution's output), from L2. A backward that recomputes the
// statistics reads a saved activation written long before. Timed both
// ways (kernel_rates.py --only bn_statistics, one H100, bf16, B=64, after
// a 256 MiB write that evicts L2), Inductor's statistics kernels took
// 0.6-7.0 us longer on 11 channels-last shapes, 3.0 us on average
// (about 1 us in NCHW, which is no reduction across rows). RegNetY-1.6GF's
// 51 statistics of 336 channels at 14x14 ran 10.5 us in its forward and
// 14.6 us recomputed in its backward; the micro-benchmark 10.0 and 14.3.
// Off: --bandwidth-option recomputed_reductions_read_cold=false.
constexpr ColumnReduction kHopperColumnReduction = {64, 3.0e-6};

// Grouped convolutions on Hopper (python/tools/kernel_rates.py, one H100:
// bf16, channels-last, 3x3, B=64, each kernel alone in a CUDA graph). At 4,
// 8, 16, 32 and 64 channels a group the forward reached 20, 31, 78, 176
// and 225e12 FLOP/s, the input gradient 17, 33, 77, 176, 266e12, the
// weight gradient 2.3, 44, 72, 170, 294e12 (medians where two shapes were
// timed), where a dense 256- or 512-channel layer reached 620-770e12. At
// 24 channels a group (RegNetY's widths 48-888 at 56-7 pixels) every
// kernel ran at 10-14e12 FLOP/s (37e12 with only 2 groups, 6-7e12 at
// stride 2): 12e12. Off with the other efficiencies.
// At 24 channels a group in NCHW (RegNetY's layers at 28, 14 and 7 pixels,
// stride 1, and at 56 and 28, stride 2; kernel_rates.py --only nchw_conv)
// cuDNN's kernels, less the conversions nchw_conversions.h charges, ran at
// 20-47e12 (forward), 17-49e12 (input gradient) and 19-37e12 (weight
// gradient), about 3 times their channels-last twins: medians 27, 30 and
// 31e12.
constexpr GroupedConvolution kHopperGroupedConv = {{{20e12, 31e12, 78e12, 176e12, 225e12}, 12e12, 27e12},
                                                   {{17e12, 33e12, 77e12, 176e12, 266e12}, 12e12, 30e12},
                                                   {{2.3e12, 44e12, 72e12, 170e12, 294e12}, 12e12, 31e12}};

// ATen's index_add on Hopper (indexFuncLargeIndex): one scalar bfloat16
// atomic add per source element, resolved at the L2. The MoE dispatch of
// 32768 x 1024 elements into a 40961 x 1024 buffer took 295 us a call on
// one H100 (plus 61 us for the copy of the zeros it adds into), where its
// source's 67 MB take 22 us: 8.8 ps an element. Off with the efficiencies.
constexpr double kHopperAtomicAddSeconds = 8.8e-12;

// Matmuls and every kernel's fixed cost on Hopper, inside a CUDA graph
// (python/tools/kernel_rates.py on one H100; docs/bandwidth_model.md).
// cuBLAS over a grid of linear layers (2048-131072 rows, 96-4096 features,
// forward, input and weight gradient) takes max(FLOPs at the efficiency,
// bytes) plus about 4 us: 0.70 of the bf16 peak and 0.55 of the TF32 peak
// sum to the grid's measured time (TF32 weight gradients run at about 0.4,
// forwards at 0.7). Any other kernel: 2 us, what bf16 multiplies of 64 and
// 128 MB take beyond their bytes at the copy rate (2.2 and 1.9 us; one of
// 8 KB takes 1.45 us in all). Without them MobileNetV3's 745 kernels,
// most of a few microseconds, came out 22% short of its step. Off with the
// other efficiencies.
constexpr double kHopperMatmulEfficiency = 0.70;
constexpr double kHopperTf32MatmulEfficiency = 0.55;
constexpr double kHopperMatmulLatency = 4e-6;
constexpr double kHopperKernelLatency = 2e-6;
// H100 SXM and H200: 132 SMs (the split-reduction rule's device term).
constexpr int kHopperMultiprocessors = 132;

// Dense bf16 convolutions on Hopper (python/tools/kernel_rates.py --only
// dense_conv, one H100: channels-last, B=64, each kernel alone in a CUDA
// graph). The large layers of ResNet-50 and VGG ran at 620-820e12 FLOP/s,
// 3x3 layers of 14.8 GFLOP at 500-540e12. Narrow kernels are slower in
// proportion to the narrower output side of their GEMM (kernel_flops.h's
// width): DenseNet's 3x3 layers of 128 to 32 channels ran their forward at
// 33-186e12 (7 to 56 pixels) and their input gradient, 128 wide, at
// 39-417e12; 32 to 64 channels at 112 pixels, the forward at 328e12 and
// the input gradient at 196e12. Over 129 kernels of 43 shapes (ResNet-50's,
// VGG's, DenseNet's, mobile networks' pointwise layers), in log error:
// 680e12 FLOP/s, 6 us a kernel (4 beyond the 2 every kernel takes), times
// width / 128 below 128; root-mean-square log error 0.27 (mean -7%),
// where sqrt(width / 128) of the lesser channel count gave 0.31 (mean
// -13%), and the one convolution efficiency (0.30) charged the
// large layers 2.3x their time (VGG-11's convolutions: 12.1 ms predicted,
// 5.2 measured). Off with the other efficiencies.
// In NCHW (kernel_rates.py --only nchw_conv), a 1x1 layer of stride 1 is
// GEMMs over the pixels: DenseNet's shapes at 14x14 (196 pixels) and 7x7
// (49) ran as CUTLASS kernels of 2- and 1-element alignment, 2.1-4.5x their
// channels-last twins (geometric mean 2.66 over 12 kernels, log rms 0.22);
// at 28x28 and 56x56 1.0-1.4x. Off: --bandwidth-option
// nchw_misaligned_gemms=false.
constexpr DenseConvolution kHopperDenseConv = {680e12, 4e-6, 128, 2.66};

// cuDNN's layout conversions around 16-bit convolutions kept NCHW on Hopper
// (nchw_conversions.h; python/tools/kernel_rates.py --only nchw_conv, one
// H100, bf16, B=64, each kernel alone in a CUDA graph). Every kernel of a
// 3x3 or 7x7 layer in NCHW (dense or grouped; DenseNet's, ResNet's and
// ResNeXt's shapes) launched two nchwToNhwc and one nhwcToNchw; a 1x1
// layer of stride 1 none, of stride 2 two (its activations). Over the 26 converted kernels of 8 channels or more, the
// NCHW kernel took longer than the channels-last one by a read and a
// write of its tensors at 0.74 of the copy rate plus 6 us (2 us for each
// conversion). A 3-channel stem's conversions ran at 0.49 (not told
// apart). DenseNet-121 in NCHW spent 3.88 ms of its step in 610 such
// kernels; the rule gives 3.2 ms for the 528 it counts. Off:
// --bandwidth-option nchw_layout_conversions=false.
constexpr double kHopperNchwConversionFraction = 0.74;

// Pooling gradients on Hopper (inductor_fusible.h): Inductor's max-pooling
// gradient of a ResNet stem (3x3 windows, stride 2: 4 taps for each of
// 64 x 64 x 112 x 112 elements, bf16, channels-last), with the offsets'
// conversion to indices and a residual add inlined, took 366, 368, 360 and
// 350 us on one H100 in ResNeXt-50, ResNet-50, DenseNet-121 and
// ShuffleNetV2 (24 channels at B=128: 4 x 38.5M taps): 1.8 ps a tap, about
// 6 times what its bytes take. Off: --bandwidth-option
// pooling_gradients_fuse=false.
constexpr double kHopperPoolTapSeconds = 1.8e-12;

constexpr Preset kPresets[] = {
    {"a100", 1.555e12, 312e12, 156e12, 1, 1, 0, 0, 0, {}, 1, 19.5e12},
    // Measured on one H100 SXM (docs/prediction_accuracy.md, micro-benchmark):
    // a 3.3 GB device copy reached 2.98e12 B/s (0.89 of the datasheet's
    // 3.35e12); matmuls and fixed costs as above. At the datasheet peaks the
    // preset predicted 8.97 ms for a Llama step measured at 13.8 ms. The
    // fused kernels' arithmetic floor and the cached rows are the H200's
    // (below): the same SMs and caches.
    {"h100", 3.35e12, 989e12, 494e12, 0.89, kHopperMatmulEfficiency, 1.59e-12, 0.61e-12, 128 * 1024, kHopperAttention,
     kHopperConvEfficiency, kHopperVectorFlops, kHopperDepthwise, kHopperAtomicAddSeconds, kHopperNarrowConv,
     kHopperColumnReduction, kHopperTf32MatmulEfficiency, kHopperKernelLatency, kHopperMatmulLatency, kHopperGroupedConv,
     kHopperMultiprocessors, kHopperDenseConv, kHopperNchwConversionFraction, kHopperPoolTapSeconds},
    // Memory efficiency measured on one H200 (docs/bandwidth_model.md,
    // micro-benchmark); matmuls and fixed costs the H100's (the same SMs).
    // Off: --bandwidth-option apply_device_efficiency=false.
    // Convolutions: the H100's measurement (the same compute).
    // Fused kernels' arithmetic floor (bandwidth_model.h), from the kernel
    // times of mlp_gelu_ln under the profiler (docs/bandwidth_model.md):
    // the forward GELU kernel (one erf per element) took 214 us for
    // 134M elements, 1.59 ps each, where its bytes take 127 us; the GELU
    // backward (erf and exp) 295 us, so an exp adds 0.61 ps. Off:
    // --bandwidth-option fused_compute_floor=false.
    // Rows read again after their reduction (BandwidthOptions::
    // cached_row_rereads): linear_ce's 100 KB logits rows. Saving the
    // softmax output adds a second loop over each row to Inductor's online-
    // softmax kernel, +1.15 ms of GPU time for a load and a store of 3.29 GB,
    // about the store alone; CUDA-graph replays measured the step +0.45 to
    // +0.88 ms, where two DRAM passes predict +1.56.
    // Off: --bandwidth-option cached_row_rereads=false.
    {"h200", 4.8e12, 989e12, 494e12, 0.88, kHopperMatmulEfficiency, 1.59e-12, 0.61e-12, 128 * 1024, kHopperAttention,
     kHopperConvEfficiency, kHopperVectorFlops, kHopperDepthwise, kHopperAtomicAddSeconds, kHopperNarrowConv,
     kHopperColumnReduction, kHopperTf32MatmulEfficiency, kHopperKernelLatency, kHopperMatmulLatency, kHopperGroupedConv,
     kHopperMultiprocessors, kHopperDenseConv, kHopperNchwConversionFraction, kHopperPoolTapSeconds},
    {"h200-measured", 4.2e12, 616e12, 300e12, 1, 1, 0, 0, 0, {}, 1, kHopperVectorFlops},
};

double positive_number(std::string_view text, std::string_view whole) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v <= 0) {
    throw SettingsError("--device " + std::string(whole) + ": expected " + device_presets_text() +
                        ", or a positive bytes-per-second number with an optional :FLOP/s");
  }
  return v;
}

}  // namespace

Device parse_device(std::string_view text) {
  for (const Preset& p : kPresets) {
    if (text == p.name) {
      return {std::string(p.name),  p.bytes_per_second,  p.flops_per_second, p.fp32_flops_per_second,
              p.memory_efficiency, p.matmul_efficiency, p.erf_seconds,       p.exp_seconds,
              p.cached_row_bytes,  p.attention,         p.conv_efficiency,  p.vector_flops_per_second,
              p.depthwise, p.atomic_add_seconds, p.narrow_conv, p.column_reduction,
              p.fp32_matmul_efficiency, p.kernel_latency_seconds, p.matmul_latency_seconds, p.grouped_conv,
              p.multiprocessors, p.dense_conv, p.nchw_conversion_fraction, p.pool_tap_seconds};
    }
  }
  const auto colon = text.find(':');
  Device d;
  d.name = std::string(text);
  d.bytes_per_second = positive_number(text.substr(0, colon), text);
  d.flops_per_second = colon == std::string_view::npos ? kPresets[1].flops_per_second
                                                        : positive_number(text.substr(colon + 1), text);
  d.fp32_flops_per_second = d.flops_per_second / 2;
  return d;
}

std::string device_presets_text() {
  std::string out;
  for (const Preset& p : kPresets) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

}  // namespace pt
