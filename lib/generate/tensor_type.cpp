#include "generate/tensor_type.h"

#include <algorithm>
#include <stdexcept>

namespace pt::gen {

int64_t numel(const Dims& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Dims contiguous_strides(const Dims& shape) {
  Dims stride(shape.size(), 1);
  int64_t running = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    stride[k] = running;
    running *= std::max<int64_t>(shape[k], 1);
  }
  return stride;
}

TensorType contiguous(Dims shape, std::string dtype) {
  Dims stride = contiguous_strides(shape);
  return {std::move(shape), std::move(stride), std::move(dtype)};
}

bool is_contiguous(const TensorType& t) {
  const Dims want = contiguous_strides(t.shape);
  for (size_t k = 0; k < t.shape.size(); ++k) {
    if (t.shape[k] != 1 && t.stride[k] != want[k]) return false;
  }
  return true;
}

TensorType like(const TensorType& t, const std::string& dtype) { return contiguous(t.shape, dtype); }
TensorType like(const TensorType& t) { return contiguous(t.shape, t.dtype); }

TensorType permuted(const TensorType& t, const Dims& perm) {
  TensorType out{{}, {}, t.dtype};
  for (int64_t p : perm) {
    out.shape.push_back(t.shape.at(static_cast<size_t>(p)));
    out.stride.push_back(t.stride.at(static_cast<size_t>(p)));
  }
  return out;
}

TensorType expanded(const TensorType& t, const Dims& shape) {
  if (shape.size() < t.shape.size()) throw std::logic_error("expand: fewer dims");
  const size_t lead = shape.size() - t.shape.size();
  TensorType out{shape, Dims(shape.size(), 0), t.dtype};
  for (size_t k = 0; k < t.shape.size(); ++k) {
    if (t.shape[k] == shape[lead + k]) {
      out.stride[lead + k] = t.stride[k];
    } else if (t.shape[k] != 1) {
      throw std::logic_error("expand: non-singleton dim differs");
    }
  }
  return out;
}

TensorType viewed(const TensorType& t, Dims shape) {
  const int64_t total = numel(t.shape);
  int64_t known = 1;
  int infer = -1;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == -1) infer = static_cast<int>(k);
    else known *= shape[k];
  }
  if (infer >= 0) shape[static_cast<size_t>(infer)] = known == 0 ? 0 : total / known;
  if (numel(shape) != total) throw std::logic_error("view: element count differs");

  // ATen's computeStride: walk the old dims from the back in chunks of
  // dims that are contiguous with each other, matching new dims to them.
  TensorType out{shape, Dims(shape.size(), 1), t.dtype};
  if (total == 0 || t.shape.empty()) {
    out.stride = contiguous_strides(shape);
    return out;
  }
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = t.stride.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(t.shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= t.shape[static_cast<size_t>(tensor_d)];
    const bool chunk_ends = tensor_d == 0 ||
                            (t.shape[static_cast<size_t>(tensor_d - 1)] != 1 &&
                             t.stride[static_cast<size_t>(tensor_d - 1)] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || shape[static_cast<size_t>(view_d)] == 1)) {
      out.stride[static_cast<size_t>(view_d)] = view_numel * chunk_base_stride;
      view_numel *= shape[static_cast<size_t>(view_d)];
      --view_d;
    }
    if (view_numel != tensor_numel) throw std::logic_error("view: needs a copy");
    if (tensor_d > 0) {
      chunk_base_stride = t.stride[static_cast<size_t>(tensor_d - 1)];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) throw std::logic_error("view: dims left over");
  return out;
}

TensorType reduced(const TensorType& t, const Dims& dims, bool keepdim) {
  const auto rank = static_cast<int64_t>(t.shape.size());
  std::vector<bool> gone(t.shape.size(), false);
  for (int64_t d : dims) gone[static_cast<size_t>(d < 0 ? d + rank : d)] = true;
  Dims shape;
  for (size_t k = 0; k < t.shape.size(); ++k) {
    if (!gone[k]) shape.push_back(t.shape[k]);
    else if (keepdim) shape.push_back(1);
  }
  return contiguous(std::move(shape), t.dtype);
}

}  // namespace pt::gen
