#include "generate/transformer_blocks.h"

#include <cmath>
#include <limits>

namespace pt::gen {

Ref linear_forward(AtenOps& o, Ref x, Ref w, Ref b, Linear& saved) {
  saved.x = x;
  saved.wt = o.permute(w, {1, 0});
  saved.out_features = o.shape(w)[0];
  return o.addmm(b, x, saved.wt);
}

Ref linear_backward(AtenOps& o, Ref dy, const Linear& saved, std::vector<Ref>& grads) {
  const Ref dx = o.mm(dy, o.permute(saved.wt, {1, 0}));
  grads.push_back(o.mm(o.permute(dy, {1, 0}), saved.x));
  grads.push_back(o.view(o.sum(dy, {0}, true), {saved.out_features}));
  return dx;
}

Ref layer_norm_forward(AtenOps& o, Ref x, Ref w, Ref b, LayerNorm& saved) {
  const std::string dtype = o.type(x).dtype;
  const Ref xf = o.convert(x, kFloat);
  const TensorType stat = reduced(o.type(xf), {2}, true);
  const Ref vm = o.builder().call_tuple("aten.var_mean.correction", {xf, Arg::of_ints({2})}, {stat, stat},
                                        {{"correction", Arg::of_int(0)}, {"keepdim", Arg::of_bool(true)}});
  const Ref var = o.builder().getitem(vm, 0);
  saved = {x, o.builder().getitem(vm, 1), o.unary("aten.rsqrt.default", o.add(var, 1e-5)), w};
  const Ref xhat = o.mul(o.sub(xf, saved.mean), saved.rstd);
  return o.convert(o.add(o.mul(xhat, w), b), dtype);
}

Ref layer_norm_backward(AtenOps& o, Ref dy, const LayerNorm& s, std::vector<Ref>& grads) {
  const std::string dtype = o.type(dy).dtype;
  const auto width = static_cast<double>(o.shape(dy).back());
  const Ref dyf = o.convert(dy, kFloat);
  const Ref xf = o.convert(s.x, kFloat);
  const Ref wf = o.convert(s.w, kFloat);
  const Ref xhat = o.mul(o.sub(xf, s.mean), s.rstd);
  const Ref g = o.mul(dyf, wf);
  const Ref scaled = o.mul(g, width);
  const Ref sum_g = o.sum(g, {2}, true);
  const Ref sum_gx = o.sum(o.mul(g, xhat), {2}, true);
  const Ref proj = o.mul(xhat, sum_gx);
  const Ref centered = o.sub(o.sub(scaled, sum_g), proj);
  const Ref dx = o.mul(o.div(s.rstd, width), centered);
  const Ref dw = o.sum(o.mul(dyf, xhat), {0, 1}, false);
  const Ref db = o.sum(dyf, {0, 1}, false);
  grads.push_back(o.convert(dw, dtype));
  grads.push_back(o.convert(db, dtype));
  return o.convert(dx, dtype);
}

Ref gelu_forward(AtenOps& o, Ref x) {
  const std::string dtype = o.type(x).dtype;
  const Ref xf = o.convert(x, kFloat);
  const Ref cube = o.mul(o.mul(xf, xf), xf);
  const Ref inner = o.mul(o.add(xf, o.mul(cube, 0.044715)), 0.7978845608028654);
  const Ref half = o.mul(xf, 0.5);
  const Ref t = o.unary("aten.tanh.default", inner);
  return o.convert(o.mul(half, o.add(t, 1.0)), dtype);
}

Ref gelu_backward(AtenOps& o, Ref dy, Ref x) {
  const std::string dtype = o.type(dy).dtype;
  const Ref dyf = o.convert(dy, kFloat);
  const Ref xf = o.convert(x, kFloat);
  const Ref square = o.mul(xf, xf);
  const Ref cube = o.mul(square, xf);
  const Ref inner = o.mul(o.add(xf, o.mul(cube, 0.044715)), 0.7978845608028654);
  const Ref t = o.unary("aten.tanh.default", inner);
  const Ref half = o.mul(xf, 0.5);
  const Ref left = o.mul(o.add(t, 1.0), 0.5);
  const Ref sech2 = o.rsub(1.0, o.mul(t, t));
  const Ref dinner = o.mul(o.add(o.mul(square, 0.134145), 1.0), 0.7978845608028654);
  const Ref right = o.mul(o.mul(half, sech2), dinner);
  return o.convert(o.mul(dyf, o.add(left, right)), dtype);
}

namespace {

// matmul's decomposition of a 4-D operand: expand, contiguous clone, fold
// the batch dims.
Ref fold_batch(AtenOps& o, Ref x) {
  const Dims s = o.shape(x);
  const Ref c = o.clone_contiguous(o.expand(x, s));
  return o.unsafe_view(c, {s[0] * s[1], s[2], s[3]});
}

// [B, A, T, D] -> [B, T, A*D], contiguous.
Ref merge_heads(AtenOps& o, Ref x) {
  const Dims s = o.shape(x);
  const Ref c = o.clone_contiguous(o.permute(x, {0, 2, 1, 3}));
  return o.view(c, {s[0], s[2], s[1] * s[3]});
}

}  // namespace

Ref attention_forward(AtenOps& o, Ref q, Ref k, Ref v, Ref mask, Attention& saved) {
  const Dims s = o.shape(q);  // B, A, T, D
  const int64_t b = s[0], a = s[1], t = s[2], d = s[3];
  const std::string dtype = o.type(q).dtype;
  saved.mask = mask;
  saved.scale = 1.0 / std::sqrt(static_cast<double>(d));
  saved.q = fold_batch(o, q);
  saved.kt = fold_batch(o, o.permute(k, {0, 1, 3, 2}));
  const Ref scores = o.mul(o.view(o.bmm(saved.q, saved.kt), {b, a, t, t}), saved.scale);
  const Ref masked = o.where(mask, scores, o.full({}, -std::numeric_limits<double>::infinity(), dtype));
  const Ref mf = o.convert(masked, kFloat);
  const Ref shifted = o.sub(mf, o.amax(mf, {-1}));
  const Ref e = o.unary("aten.exp.default", shifted);
  saved.probs = o.div(e, o.sum(e, {-1}, true));
  const Ref pd = o.convert(saved.probs, dtype);
  saved.probs_flat = o.view(o.expand(pd, {b, a, t, t}), {b * a, t, t});
  saved.v = fold_batch(o, v);
  const Ref out = o.view(o.bmm(saved.probs_flat, saved.v), {b, a, t, d});
  return merge_heads(o, out);
}

std::vector<Ref> attention_backward(AtenOps& o, Ref dout, const Attention& s) {
  const Dims ps = o.shape(s.probs);  // B, A, T, T
  const int64_t b = ps[0], a = ps[1], t = ps[2];
  const int64_t d = o.shape(s.q)[2];
  const std::string dtype = o.type(dout).dtype;
  const Ref heads = o.permute(o.view(dout, {b, t, a, d}), {0, 2, 1, 3});
  const Ref d3 = o.unsafe_view(o.clone_contiguous(heads), {b * a, t, d});
  const Ref dprobs = o.bmm(d3, o.permute(s.v, {0, 2, 1}));
  const Ref dv = o.bmm(o.permute(s.probs_flat, {0, 2, 1}), d3);
  // Softmax backward: p * (g - sum(g * p)).
  const Ref gf = o.convert(o.view(dprobs, {b, a, t, t}), kFloat);
  const Ref gp = o.mul(gf, s.probs);
  const Ref dsoft = o.sub(gp, o.mul(s.probs, o.sum(gp, {-1}, true)));
  const Ref dmasked = o.where(s.mask, o.convert(dsoft, dtype), o.full({}, 0.0, dtype));
  const Ref dscores = o.view(o.mul(dmasked, s.scale), {b * a, t, t});
  const Ref dq = o.bmm(dscores, o.permute(s.kt, {0, 2, 1}));
  const Ref dkt = o.bmm(o.permute(s.q, {0, 2, 1}), dscores);
  const Ref dk = o.permute(o.view(dkt, {b, a, d, t}), {0, 1, 3, 2});
  return {merge_heads(o, o.view(dq, {b, a, t, d})), merge_heads(o, dk), merge_heads(o, o.view(dv, {b, a, t, d}))};
}

}  // namespace pt::gen
