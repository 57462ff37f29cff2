// FLOP formulas of torch/utils/flop_counter.py (PyTorch 2.11), as pure
// functions of shapes. Each reads the shapes positionally, exactly as the
// Python formula unpacks them, so layouts PyTorch misreads are misread the
// same way (see runtime_estimate.h). Counts are exact 128-bit integers, as
// Python's are exact (an mm of two valid tensors can pass 2^64 FLOPs); a
// result above 2^128 - 1 throws std::overflow_error, a shape of the wrong
// rank (where Python's unpacking raises) or a negative dimension
// std::invalid_argument.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace pt::flops {

using Shape = std::vector<int64_t>;
using FlopCount = unsigned __int128;

// mm / addmm / _scaled_mm: a = [M, K], b = [K, N] -> 2 * M * N * K.
FlopCount mm(const Shape& a, const Shape& b);
// bmm / baddbmm: a = [B, M, K], b = [B, K, N] -> 2 * B * M * N * K.
FlopCount bmm(const Shape& a, const Shape& b);

// conv_flop_count: 2 * x[0] * w[0] * w[1] * prod(w[2:]) * prod(spatial),
// spatial = (transposed ? x : out)[2:]. For a grouped convolution w[1] is
// already c_in / groups; bias is ignored.
FlopCount conv(const Shape& x, const Shape& w, const Shape& out, bool transposed);

// conv_backward_flop: the grad_input term when mask_input (a convolution
// with `transposed` flipped, from grad_out and the weight to grad_input's
// shape), plus the grad_weight term when mask_weight (on the channel/batch
// transposed shapes t(s) = [s1, s0, s2...]: conv(t(x), t(grad_out),
// t(grad_weight)), or conv(t(grad_out), t(x), t(grad_weight)) when
// transposed). The grad_bias output is never counted. The shape of an output
// whose mask bit is off is not read (may be nullopt).
FlopCount conv_backward(const Shape& grad_out, const Shape& x, const Shape& w, bool transposed,
                       bool mask_input, bool mask_weight, const std::optional<Shape>& grad_input,
                       const std::optional<Shape>& grad_weight);

// sdpa_flop_count on q = [b, h, s_q, d_q], k = [., ., s_k, .], v = [., ., ., d_v]:
// bmm(q @ k^T) + bmm(scores @ v) = 2*b*h*s_q*s_k*d_q + 2*b*h*s_q*s_k*d_v.
// b and h are the query's (so grouped-query attention counts the query heads);
// causal masks are ignored.
FlopCount sdpa(const Shape& q, const Shape& k, const Shape& v);

// sdpa_backward_flop_count: five bmm, 2*b*h*s_q*s_k*(3*d_q + 2*d_v). grad_out
// must be 4-D but its sizes are not used.
FlopCount sdpa_backward(const Shape& grad_out, const Shape& q, const Shape& k, const Shape& v);

}  // namespace pt::flops
