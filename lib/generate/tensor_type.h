// Shapes, strides and dtypes of generated tensors, computed the way ATen
// computes them for the view and layout ops the generator emits (permute,
// expand, view, reductions), so generated graphs carry realistic strides.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace pt::gen {

using Dims = std::vector<int64_t>;

struct TensorType {
  Dims shape;
  Dims stride;
  std::string dtype;
};

// Row-major strides of `shape`.
Dims contiguous_strides(const Dims& shape);
TensorType contiguous(Dims shape, std::string dtype);
bool is_contiguous(const TensorType& t);

// Same shape as `t`, dense row-major, of `dtype` (what pointwise ops and
// dtype conversions produce).
TensorType like(const TensorType& t, const std::string& dtype);
TensorType like(const TensorType& t);

TensorType permuted(const TensorType& t, const Dims& perm);
// Broadcast to `shape` (new leading dims allowed): size-1 and new dims get stride 0.
TensorType expanded(const TensorType& t, const Dims& shape);
// aten.view: ATen's computeStride; throws std::logic_error when the view is
// impossible without a copy (a generator bug). One -1 dim is inferred.
TensorType viewed(const TensorType& t, Dims shape);
// Sum/amax/var over `dims` (negative counts from the end), contiguous result.
TensorType reduced(const TensorType& t, const Dims& dims, bool keepdim);

int64_t numel(const Dims& shape);

}  // namespace pt::gen
