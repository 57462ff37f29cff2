// How fast the GPU runs fused attention (cuDNN's scaled-dot-product
// attention, what PyTorch 2.11 picks on Hopper for every attention model in
// the corpus), by sequence length and head size, for the bandwidth model's
// compute time of those kernels. The matmul rate (Device::matmul_efficiency)
// over the FLOP count under-charges them: on an H200, attention over ViT's 197
// tokens ran at 164e12 FLOP/s forward and 125e12 backward, GPT-2's causal
// 1024 at 627e12 / 478e12 (counting the whole S x S square), against 613e12
// for a large matmul (python/tools/attention_bench.py, its summary in
// docs/bandwidth_model.md).
//
// The fit: both sequence axes padded to 128-row tiles, and the rate at the
// padded length S is R(d) * S / (S + s0), R interpolated between the head
// sizes 64 and 128 (clamped outside) -- within 3-7% of the measured times
// from 128 to 2048 tokens. Off, with the other measured efficiencies:
// --bandwidth-option apply_device_efficiency=false.
#pragma once

#include <cstdint>
#include <optional>

#include "graph/graph.h"

namespace pt {

struct AttentionFit {
  double rate_d64 = 0;   // FLOP/s at long sequences, head size 64 (0: not measured)
  double rate_d128 = 0;  // the same at head size 128
  double s0 = 0;         // the padded sequence length at which the rate is half that
};

struct AttentionRates {
  AttentionFit forward, backward, causal_forward, causal_backward;
};

// Seconds for the `flops` of node `id` when it is cuDNN attention (forward
// or backward) and `rates` has a fit for it; nullopt otherwise (the caller
// charges the matmul rate).
std::optional<double> attention_seconds(const Graph& g, NodeId id, double flops, const AttentionRates& rates);

}  // namespace pt
