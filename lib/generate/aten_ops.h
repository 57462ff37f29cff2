// Typed emitters for the aten/prims ops of a transformer's joint graph: each
// appends one node with the target, argument layout and output
// shape/stride/dtype that PyTorch's decompositions produce.
#pragma once

#include <string>

#include "generate/graph_builder.h"

namespace pt::gen {

class AtenOps {
 public:
  explicit AtenOps(GraphBuilder& b) : b_(b) {}
  GraphBuilder& builder() { return b_; }
  const TensorType& type(Ref r) const { return b_.type(r); }
  const Dims& shape(Ref r) const { return b_.type(r).shape; }

  // Pointwise, broadcasting; float32 wins over lower precision (type promotion).
  Ref add(Ref a, Ref b) { return binary("aten.add.Tensor", a, b); }
  Ref sub(Ref a, Ref b) { return binary("aten.sub.Tensor", a, b); }
  Ref mul(Ref a, Ref b) { return binary("aten.mul.Tensor", a, b); }
  Ref div(Ref a, Ref b) { return binary("aten.div.Tensor", a, b); }
  Ref add(Ref a, double c) { return scalar("aten.add.Tensor", a, c); }
  Ref mul(Ref a, double c) { return scalar("aten.mul.Tensor", a, c); }
  Ref div(Ref a, double c) { return scalar("aten.div.Tensor", a, c); }
  Ref rsub(double c, Ref a);  // c - a, as aten.sub.Tensor(c, a)
  Ref unary(const char* target, Ref a);
  Ref where(Ref cond, Ref a, Ref b);
  // dtype conversion; returns `a` itself when it already has `dtype`.
  Ref convert(Ref a, const std::string& dtype);

  Ref sum(Ref a, const Dims& dims, bool keepdim);
  Ref amax(Ref a, const Dims& dims);  // keepdim
  Ref mean_all(Ref a);

  Ref view(Ref a, Dims shape);
  Ref unsafe_view(Ref a, Dims shape);
  Ref permute(Ref a, const Dims& perm);
  Ref expand(Ref a, const Dims& shape);
  Ref unsqueeze(Ref a, int64_t dim);
  Ref squeeze(Ref a, int64_t dim);
  Ref clone_contiguous(Ref a);
  Ref cat(const std::vector<Ref>& parts, int64_t dim);

  Ref mm(Ref a, Ref b);
  Ref bmm(Ref a, Ref b);
  Ref addmm(Ref bias, Ref a, Ref b);

  // aten.full.default: `shape` filled with `value`.
  Ref full(const Dims& shape, double value, const std::string& dtype);

 private:
  Ref binary(const char* target, Ref a, Ref b);
  Ref scalar(const char* target, Ref a, double c);
  GraphBuilder& b_;
};

}  // namespace pt::gen
