#include "estimate/inductor_fusible.h"

#include <algorithm>
#include <vector>

namespace pt {

bool tagged_pointwise(const Graph& g, NodeId id) { return g[id].pointwise_tag; }

bool is_slice_scatter(const Graph& g, NodeId id) {
  const std::string_view packet = g[id].packet;
  return packet == "aten.select_scatter" || packet == "aten.slice_scatter";
}

bool is_pooling_gradient(const Graph& g, NodeId id) {
  const std::string_view packet = g[id].packet;
  return packet == "aten.max_pool2d_with_indices_backward" || packet == "aten.avg_pool2d_backward";
}

uint64_t pooling_gradient_taps(const Graph& g, NodeId id) {
  if (!is_pooling_gradient(g, id)) return 0;
  // (grad_output, self, kernel_size, stride, ...) for both ops.
  const proto::Node pn = g.record(id);
  // One item stands for every axis.
  const std::vector<int64_t> kernel = int_list_arg(pn, 2, "kernel_size");
  std::vector<int64_t> stride = int_list_arg(pn, 3, "stride");
  if (stride.empty()) stride = kernel;  // PyTorch's default: the kernel size
  const auto positive = [](const std::vector<int64_t>& v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](int64_t x) { return x > 0; });
  };
  if (!positive(kernel) || !positive(stride)) return 0;
  uint64_t taps = 1;
  for (size_t axis = 0; axis < 2; ++axis) {
    const int64_t k = kernel[std::min(axis, kernel.size() - 1)];
    const int64_t s = stride[std::min(axis, stride.size() - 1)];
    // ceil(k / s) without overflow; a window past 2^20 taps a side is no
    // real model's (and keeps the product in range).
    taps *= static_cast<uint64_t>(std::min<int64_t>((k - 1) / s + 1, int64_t{1} << 20));
  }
  return taps;
}

bool copies_into_input(const Graph& g, NodeId id) {
  const Node& n = g[id];
  return n.packet == "aten.copy_" && n.positional_inputs.size() == 2 &&
         g[n.positional_inputs[0]].op == OpKind::Placeholder;
}

}  // namespace pt
