#include "estimate/inductor_padding.h"

#include <optional>
#include <algorithm>
#include <numeric>
#include <vector>

namespace pt {

namespace {

constexpr int64_t kPaddingStrideThreshold = 1024;  // elements (config.padding_stride_threshold)
constexpr int64_t kPaddingAlignmentBytes = 128;    // config.padding_alignment_bytes

bool is_channels_last_contiguous(const proto::TensorMeta& t) {
  const int n = t.shape_size();
  if ((n != 4 && n != 5) || t.stride_size() != n) return false;
  // Channels-last order: dimension 1 fastest, then the last ones backwards, then 0.
  std::vector<int> fill = {1};
  for (int d = n - 1; d >= 2; --d) fill.push_back(d);
  fill.push_back(0);
  int64_t expected = 1;
  for (int d : fill) {
    if (t.shape(d) != 1 && t.stride(d) != expected) return false;
    expected *= t.shape(d);
  }
  return true;
}

// Layout._pad_strides: the strides of `t` after comprehensive padding (its
// own when nothing is padded).
std::vector<int64_t> padded_strides(const proto::TensorMeta& t, int64_t itemsize) {
  const int n = t.shape_size();
  std::vector<int64_t> strides(t.stride().begin(), t.stride().end());
  if (n == 0 || t.stride_size() != n || itemsize <= 0 || is_channels_last_contiguous(t)) return strides;
  const int64_t align = std::max<int64_t>(1, kPaddingAlignmentBytes / itemsize);
  std::vector<int> fill(static_cast<size_t>(n));
  std::iota(fill.begin(), fill.end(), 0);
  std::stable_sort(fill.begin(), fill.end(), [&](int a, int b) { return strides[a] < strides[b]; });
  std::vector<int64_t> out(static_cast<size_t>(n), 0);
  out[fill[0]] = 1;
  bool padded = false;
  for (size_t rank = 1; rank < fill.size(); ++rank) {
    const int prev = fill[rank - 1];
    int64_t stride = out[prev] * t.shape(prev);
    if (stride > kPaddingStrideThreshold && stride % align != 0) {
      stride = (stride + align - 1) / align * align;
      padded = true;
    }
    out[fill[rank]] = stride;
  }
  return padded ? out : strides;
}

int64_t itemsize_of(const Node& n) {
  return n.numel == 0 ? 0 : static_cast<int64_t>(n.size_bytes / n.numel);
}

}  // namespace

uint64_t padded_storage_bytes(const Graph& g, NodeId id, NodeId pad) {
  const Node& n = g[id];
  const std::optional<proto::TensorMeta> t = n.value_kind == ValueKind::Tensor ? tensor_meta(g, id) : std::nullopt;
  const int64_t itemsize = itemsize_of(n);
  if (!t || itemsize <= 0) return n.size_bytes;
  const std::optional<proto::TensorMeta> sizes = pad == kNoNode ? t : tensor_meta(g, pad);
  if (!sizes || sizes->shape_size() != t->shape_size()) return n.size_bytes;
  const std::vector<int64_t> strides = padded_strides(*t, itemsize);
  // Strides are optional in a graph: without one per dimension there is no
  // padded layout to read.
  if (strides.size() != static_cast<size_t>(t->shape_size())) return n.size_bytes;
  int64_t elements = 1;
  for (int d = 0; d < t->shape_size(); ++d) {
    if (sizes->shape(d) == 0) return n.size_bytes;
    elements += (sizes->shape(d) - 1) * strides[static_cast<size_t>(d)];
  }
  return std::max<uint64_t>(n.size_bytes, static_cast<uint64_t>(elements * itemsize));
}

bool pads_in_place(const Graph& g, NodeId pad) {
  const Node& p = g[pad];
  if (p.packet != "aten.constant_pad_nd" || p.positional_inputs.empty()) return false;
  const auto users = g.users[pad];
  if (users.size() != 1 || (g[users[0]].packet != "aten.mm" && g[users[0]].packet != "aten.addmm")) return false;
  const proto::Node& r = g.record(pad);
  if (r.args_size() < 2 || r.args(1).kind_case() != proto::Arg::kList) return false;
  const auto& items = r.args(1).list().items();
  if (items.size() != 4) return false;
  int64_t v[4];
  for (int i = 0; i < 4; ++i) {
    if (items[i].kind_case() != proto::Arg::kInt) return false;
    v[i] = items[i].int_();
  }
  if (v[0] != 0 || v[1] <= 0 || v[2] != 0 || v[3] != 0) return false;
  const NodeId in = p.positional_inputs[0];
  const std::optional<proto::TensorMeta> t = tensor_meta(g, in);
  const int64_t itemsize = itemsize_of(g[in]);
  if (!t || t->shape_size() != 2 || t->stride_size() != 2 || itemsize <= 0 || t->stride(1) != 1) return false;
  const std::vector<int64_t> strides = padded_strides(*t, itemsize);
  return strides[0] >= t->shape(1) + v[1];
}

}  // namespace pt
