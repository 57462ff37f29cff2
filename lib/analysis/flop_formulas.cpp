#include "analysis/flop_formulas.h"

#include <stdexcept>
#include <string>

namespace pt::flops {

namespace {

FlopCount dim(const Shape& s, size_t i) {
  if (s[i] < 0) throw std::invalid_argument("negative dimension " + std::to_string(s[i]));
  return static_cast<uint64_t>(s[i]);
}

void need_rank(const Shape& s, size_t rank, const char* what) {
  if (s.size() != rank) {
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(s.size()) + " dimensions, expected " +
                                std::to_string(rank));
  }
}

void need_min_rank(const Shape& s, size_t rank, const char* what) {
  if (s.size() < rank) {
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(s.size()) +
                                " dimensions, expected at least " + std::to_string(rank));
  }
}

// Exact products and sums in 128 bits: a count past them is an error, not a
// wrap. Shapes of at most 2^52 bytes (graph/value_bytes_limit.h) give
// products of two tensors' elements, below 2^106; only sequence lengths
// given as arguments (nested attention) can go further.
FlopCount mul(FlopCount a, FlopCount b) {
  FlopCount r;
  if (__builtin_mul_overflow(a, b, &r)) throw std::overflow_error("FLOP count exceeds 2^128");
  return r;
}

FlopCount add(FlopCount a, FlopCount b) {
  FlopCount r;
  if (__builtin_add_overflow(a, b, &r)) throw std::overflow_error("FLOP count exceeds 2^128");
  return r;
}


FlopCount product_from(const Shape& s, size_t first) {
  FlopCount p = 1;
  for (size_t i = first; i < s.size(); ++i) p = mul(p, dim(s, i));
  return p;
}

// bmm_flop on (batch, m, k) @ (batch, k, n).
FlopCount bmm_terms(FlopCount batch, FlopCount m, FlopCount k, FlopCount n) {
  return mul(mul(mul(mul(batch, m), n), 2), k);
}

Shape channel_transposed(const Shape& s) {
  need_min_rank(s, 2, "convolution_backward shape");
  Shape t = s;
  std::swap(t[0], t[1]);
  return t;
}

}  // namespace

FlopCount mm(const Shape& a, const Shape& b) {
  need_rank(a, 2, "mm first operand");
  need_rank(b, 2, "mm second operand");
  return bmm_terms(1, dim(a, 0), dim(a, 1), dim(b, 1));
}

FlopCount bmm(const Shape& a, const Shape& b) {
  need_rank(a, 3, "bmm first operand");
  need_rank(b, 3, "bmm second operand");
  return bmm_terms(dim(a, 0), dim(a, 1), dim(a, 2), dim(b, 2));
}

FlopCount conv(const Shape& x, const Shape& w, const Shape& out, bool transposed) {
  need_min_rank(x, 1, "convolution input");
  need_min_rank(w, 2, "convolution weight");
  const FlopCount spatial = product_from(transposed ? x : out, 2);
  const FlopCount filter = product_from(w, 2);
  return mul(mul(mul(mul(mul(spatial, filter), dim(x, 0)), dim(w, 0)), dim(w, 1)), 2);
}

FlopCount conv_backward(const Shape& grad_out, const Shape& x, const Shape& w, bool transposed,
                       bool mask_input, bool mask_weight, const std::optional<Shape>& grad_input,
                       const std::optional<Shape>& grad_weight) {
  FlopCount total = 0;
  if (mask_input) {
    if (!grad_input) throw std::invalid_argument("convolution_backward: grad_input requested but not a tensor");
    total = add(total, conv(grad_out, w, *grad_input, !transposed));
  }
  if (mask_weight) {
    if (!grad_weight) throw std::invalid_argument("convolution_backward: grad_weight requested but not a tensor");
    const Shape tw = channel_transposed(*grad_weight);
    if (transposed) {
      total = add(total, conv(channel_transposed(grad_out), channel_transposed(x), tw, false));
    } else {
      total = add(total, conv(channel_transposed(x), channel_transposed(grad_out), tw, false));
    }
  }
  return total;
}

FlopCount sdpa(const Shape& q, const Shape& k, const Shape& v) {
  need_rank(q, 4, "attention query");
  need_rank(k, 4, "attention key");
  need_rank(v, 4, "attention value");
  const FlopCount bh = mul(dim(q, 0), dim(q, 1));
  const FlopCount s_q = dim(q, 2), d_q = dim(q, 3), s_k = dim(k, 2), d_v = dim(v, 3);
  return add(bmm_terms(bh, s_q, d_q, s_k), bmm_terms(bh, s_q, s_k, d_v));
}

FlopCount sdpa_backward(const Shape& grad_out, const Shape& q, const Shape& k, const Shape& v) {
  need_rank(grad_out, 4, "attention grad_out");
  need_rank(q, 4, "attention query");
  need_rank(k, 4, "attention key");
  need_rank(v, 4, "attention value");
  const FlopCount bh = mul(dim(q, 0), dim(q, 1));
  const FlopCount s_q = dim(q, 2), d_q = dim(q, 3), s_k = dim(k, 2), d_v = dim(v, 3);
  FlopCount total = bmm_terms(bh, s_q, d_q, s_k);     // recompute scores = q @ k^T
  total = add(total, bmm_terms(bh, s_q, d_v, s_k));  // grad_scores = grad_out @ v^T
  total = add(total, bmm_terms(bh, s_k, s_q, d_v));  // grad_v = scores^T @ grad_out
  total = add(total, bmm_terms(bh, s_q, s_k, d_q));  // grad_q = grad_scores @ k
  total = add(total, bmm_terms(bh, d_q, s_q, s_k));  // grad_k = q^T @ grad_scores
  return total;
}

}  // namespace pt::flops
