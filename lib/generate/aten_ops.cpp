#include "generate/aten_ops.h"

#include <stdexcept>

namespace pt::gen {

namespace {

Dims broadcast(const Dims& a, const Dims& b) {
  const Dims& longer = a.size() >= b.size() ? a : b;
  const Dims& shorter = a.size() >= b.size() ? b : a;
  Dims out = longer;
  const size_t lead = longer.size() - shorter.size();
  for (size_t k = 0; k < shorter.size(); ++k) {
    const int64_t x = longer[lead + k];
    const int64_t y = shorter[k];
    if (x != y && x != 1 && y != 1) throw std::logic_error("broadcast: shapes differ");
    out[lead + k] = x == 1 ? y : x;
  }
  return out;
}

// Type promotion between two floating tensors: a 0-dim tensor does not
// raise a dimensioned one; otherwise the wider float wins.
std::string promote(const TensorType& a, const TensorType& b) {
  if (a.dtype == b.dtype) return a.dtype;
  if (a.shape.empty() != b.shape.empty()) return a.shape.empty() ? b.dtype : a.dtype;
  if (a.dtype == "float32" || b.dtype == "float32") return "float32";
  return a.dtype;
}

Dims normalized(const Dims& dims, size_t rank) {
  Dims out;
  for (int64_t d : dims) out.push_back(d < 0 ? d + static_cast<int64_t>(rank) : d);
  return out;
}

}  // namespace

Ref AtenOps::binary(const char* target, Ref a, Ref b) {
  const TensorType& ta = type(a);
  const TensorType& tb = type(b);
  return b_.call(target, {a, b}, contiguous(broadcast(ta.shape, tb.shape), promote(ta, tb)));
}

Ref AtenOps::scalar(const char* target, Ref a, double c) {
  return b_.call(target, {a, Arg::of_float(c)}, like(type(a)));
}

Ref AtenOps::rsub(double c, Ref a) { return b_.call("aten.sub.Tensor", {Arg::of_float(c), a}, like(type(a))); }

Ref AtenOps::unary(const char* target, Ref a) { return b_.call(target, {a}, like(type(a))); }

Ref AtenOps::where(Ref cond, Ref a, Ref b) {
  const Dims out = broadcast(broadcast(shape(cond), shape(a)), shape(b));
  return b_.call("aten.where.self", {cond, a, b}, contiguous(out, promote(type(a), type(b))));
}

Ref AtenOps::convert(Ref a, const std::string& dtype) {
  if (type(a).dtype == dtype) return a;
  return b_.call("prims.convert_element_type.default", {a, Arg::dtype(dtype)}, like(type(a), dtype));
}

Ref AtenOps::sum(Ref a, const Dims& dims, bool keepdim) {
  const TensorType out = reduced(type(a), normalized(dims, shape(a).size()), keepdim);
  if (keepdim) return b_.call("aten.sum.dim_IntList", {a, Arg::of_ints(dims), Arg::of_bool(true)}, out);
  return b_.call("aten.sum.dim_IntList", {a, Arg::of_ints(dims)}, out);
}

Ref AtenOps::amax(Ref a, const Dims& dims) {
  const TensorType out = reduced(type(a), normalized(dims, shape(a).size()), true);
  return b_.call("aten.amax.default", {a, Arg::of_ints(dims), Arg::of_bool(true)}, out);
}

Ref AtenOps::mean_all(Ref a) { return b_.call("aten.mean.default", {a}, contiguous({}, type(a).dtype)); }

Ref AtenOps::view(Ref a, Dims shape) {
  TensorType out = viewed(type(a), shape);
  return b_.call("aten.view.default", {a, Arg::of_ints(std::move(shape))}, std::move(out));
}

Ref AtenOps::unsafe_view(Ref a, Dims shape) {
  TensorType out = viewed(type(a), shape);
  return b_.call("aten._unsafe_view.default", {a, Arg::of_ints(std::move(shape))}, std::move(out));
}

Ref AtenOps::permute(Ref a, const Dims& perm) {
  return b_.call("aten.permute.default", {a, Arg::of_ints(perm)}, permuted(type(a), perm));
}

Ref AtenOps::expand(Ref a, const Dims& shape) {
  return b_.call("aten.expand.default", {a, Arg::of_ints(shape)}, expanded(type(a), shape));
}

Ref AtenOps::unsqueeze(Ref a, int64_t dim) {
  Dims s = shape(a);
  s.insert(s.begin() + dim, 1);
  return b_.call("aten.unsqueeze.default", {a, Arg::of_int(dim)}, viewed(type(a), s));
}

Ref AtenOps::squeeze(Ref a, int64_t dim) {
  Dims s = shape(a);
  s.erase(s.begin() + dim);
  return b_.call("aten.squeeze.dim", {a, Arg::of_int(dim)}, viewed(type(a), s));
}

Ref AtenOps::clone_contiguous(Ref a) {
  return b_.call("aten.clone.default", {a}, like(type(a)), {{"memory_format", Arg::repr("torch.contiguous_format")}});
}

Ref AtenOps::cat(const std::vector<Ref>& parts, int64_t dim) {
  Dims s = shape(parts.front());
  s[static_cast<size_t>(dim)] = 0;
  for (Ref p : parts) s[static_cast<size_t>(dim)] += shape(p)[static_cast<size_t>(dim)];
  return b_.call("aten.cat.default", {Arg::of_nodes(parts), Arg::of_int(dim)}, contiguous(s, type(parts.front()).dtype));
}

Ref AtenOps::mm(Ref a, Ref b) {
  return b_.call("aten.mm.default", {a, b}, contiguous({shape(a)[0], shape(b)[1]}, type(a).dtype));
}

Ref AtenOps::bmm(Ref a, Ref b) {
  return b_.call("aten.bmm.default", {a, b}, contiguous({shape(a)[0], shape(a)[1], shape(b)[2]}, type(a).dtype));
}

Ref AtenOps::addmm(Ref bias, Ref a, Ref b) {
  return b_.call("aten.addmm.default", {bias, a, b}, contiguous({shape(a)[0], shape(b)[1]}, type(a).dtype));
}

Ref AtenOps::full(const Dims& shape, double value, const std::string& dtype) {
  return b_.call("aten.full.default", {Arg::of_ints(shape), Arg::of_float(value)}, contiguous(shape, dtype),
                 {{"device", Arg::device("cuda:0")},
                  {"dtype", Arg::dtype(dtype)},
                  {"layout", Arg::repr("torch.strided")},
                  {"pin_memory", Arg::of_bool(false)}});
}

}  // namespace pt::gen
