// The pieces of a transformer block, forward and backward, as PyTorch's
// decompositions write them. Each forward returns what its backward reads
// from the forward (the values the partitioner decides to save or recompute).
#pragma once

#include <vector>

#include "generate/aten_ops.h"

namespace pt::gen {

// The dtype name of the blocks' float32 statistics and masks.
inline constexpr const char* kFloat = "float32";

// y = x @ w.T + b on a 2-D x [N, in] (addmm).
struct Linear {
  Ref x = kNone;
  Ref wt = kNone;  // permute(w, [1, 0])
  int64_t out_features = 0;
};
Ref linear_forward(AtenOps& o, Ref x, Ref w, Ref b, Linear& saved);
// dx; the weight and bias gradients are appended to `grads` (w, then b).
Ref linear_backward(AtenOps& o, Ref dy, const Linear& saved, std::vector<Ref>& grads);

// Layer norm over the last dim, computed in float32 (var_mean, rsqrt).
struct LayerNorm {
  Ref x = kNone;
  Ref mean = kNone;
  Ref rstd = kNone;
  Ref w = kNone;
};
Ref layer_norm_forward(AtenOps& o, Ref x, Ref w, Ref b, LayerNorm& saved);
Ref layer_norm_backward(AtenOps& o, Ref dy, const LayerNorm& saved, std::vector<Ref>& grads);

// GELU, tanh approximation, in float32; the backward recomputes from the input.
Ref gelu_forward(AtenOps& o, Ref x);
Ref gelu_backward(AtenOps& o, Ref dy, Ref x);

// Causal self-attention on q, k, v [B, A, T, D] with explicit batched
// matmuls and a float32 softmax under `mask` (bool, broadcast to [B, A, T, T]).
// Returns the output as [B, T, A*D].
struct Attention {
  Ref q = kNone;  // [B*A, T, D]
  Ref kt = kNone; // [B*A, D, T]
  Ref v = kNone;  // [B*A, T, D]
  Ref probs = kNone;      // float32 softmax output [B, A, T, T]
  Ref probs_flat = kNone; // [B*A, T, T] in the activation dtype
  Ref mask = kNone;
  double scale = 1;
};
Ref attention_forward(AtenOps& o, Ref q, Ref k, Ref v, Ref mask, Attention& saved);
// Gradients of q, k and v, each as [B, T, A*D].
std::vector<Ref> attention_backward(AtenOps& o, Ref dout, const Attention& saved);

}  // namespace pt::gen
