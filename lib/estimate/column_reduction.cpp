#include "estimate/column_reduction.h"

#include <algorithm>
#include <numeric>
#include <string_view>
#include <vector>

#include "estimate/inductor_layout.h"

namespace pt {

namespace {

// Reductions whose second argument lists the reduced dimensions.
constexpr std::string_view kReductionsOverDims[] = {
    "aten.sum", "aten.mean", "aten.var_mean", "aten.var", "aten.amax", "aten.amin",
};

// The reduced dimensions of `pn` (its second argument, an int or a list),
// made non-negative; empty when not literal.
std::vector<int64_t> reduced_dims(const proto::Node& pn, int64_t rank) {
  std::vector<int64_t> dims;
  if (pn.args_size() < 2) return dims;
  const proto::Arg& a = pn.args(1);
  if (a.kind_case() == proto::Arg::kInt) {
    dims.push_back(a.int_());
  } else if (a.kind_case() == proto::Arg::kList) {
    for (const proto::Arg& item : a.list().items()) {
      if (item.kind_case() != proto::Arg::kInt) return {};
      dims.push_back(item.int_());
    }
  }
  for (int64_t& d : dims) d = d < 0 ? d + rank : d;
  return dims;
}

bool reduces_over_dims(const Node& n) {
  return std::find(std::begin(kReductionsOverDims), std::end(kReductionsOverDims), n.packet) !=
             std::end(kReductionsOverDims) &&
         !n.positional_inputs.empty();
}

}  // namespace

uint64_t column_reduction_row_bytes(const Graph& g, NodeId id, const Flags& channels_last) {
  const Node& n = g[id];
  if (!reduces_over_dims(n)) return 0;
  const NodeId input = n.positional_inputs[0];
  const proto::Node input_record = g.record(input);
  const proto::Value& v = input_record.val();
  if (v.kind_case() != proto::Value::kTensor) return 0;
  const auto& shape = v.tensor().shape();
  const bool laid_out = !channels_last.empty() && channels_last[static_cast<size_t>(input)];
  const std::vector<int64_t> stride = inductor_strides(v.tensor(), laid_out);
  const auto rank = static_cast<int64_t>(shape.size());
  const std::vector<int64_t> dims = reduced_dims(g.record(id), rank);
  if (dims.empty() || rank == 0) return 0;
  // Axes from the innermost out (contiguous order without strides).
  std::vector<int64_t> order(static_cast<size_t>(rank));
  std::iota(order.rbegin(), order.rend(), 0);
  if (stride.size() == static_cast<size_t>(shape.size())) {
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return stride[a] < stride[b]; });
  }
  int64_t extent = 1;
  for (int64_t d : order) {
    if (shape[d] == 1) continue;
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) break;
    if (stride.size() == static_cast<size_t>(shape.size()) && stride[d] != extent) break;
    extent *= shape[d];
  }
  if (extent == 1) return 0;  // the innermost axis is reduced
  // The item size of what the kernel loads: through an upcast to the buffer.
  NodeId source = input;
  while (g[source].packet == "prims.convert_element_type" && !g[source].positional_inputs.empty()) {
    source = g[source].positional_inputs[0];
  }
  if (g[source].numel == 0) return 0;
  return static_cast<uint64_t>(extent) * (g[source].size_bytes / g[source].numel);
}

uint64_t row_reduction_length(const Graph& g, NodeId id, const Flags& channels_last) {
  const Node& n = g[id];
  if (!reduces_over_dims(n)) return 0;
  const proto::Node input_record = g.record(n.positional_inputs[0]);
  const proto::Value& v = input_record.val();
  if (v.kind_case() != proto::Value::kTensor) return 0;
  const auto& shape = v.tensor().shape();
  const auto rank = static_cast<int64_t>(shape.size());
  const std::vector<int64_t> dims = reduced_dims(g.record(id), rank);
  if (dims.empty() || column_reduction_row_bytes(g, id, channels_last) > 0) return 0;
  uint64_t length = 1;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) return 0;
    length *= static_cast<uint64_t>(std::max<int64_t>(shape[d], 0));
  }
  return length;
}

bool is_split_reduction(const Graph& g, NodeId id, int multiprocessors, const Flags& channels_last) {
  const Node& n = g[id];
  if (multiprocessors <= 0 || !reduces_over_dims(n)) return false;
  const proto::Node input_record = g.record(n.positional_inputs[0]);
  const proto::Value& v = input_record.val();
  if (v.kind_case() != proto::Value::kTensor) return false;
  const auto& shape = v.tensor().shape();
  const auto rank = static_cast<int64_t>(shape.size());
  uint64_t total = 1;
  for (int64_t s : shape) total *= static_cast<uint64_t>(std::max<int64_t>(s, 0));
  if (total == 0) return false;
  // No listed dimensions (aten.sum's default overload): every axis.
  const std::vector<int64_t> dims = reduced_dims(g.record(id), rank);
  uint64_t reduced = dims.empty() ? total : 1;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) return false;
    reduced *= static_cast<uint64_t>(shape[d]);
  }
  if (reduced == 0) return false;
  const uint64_t outputs = total / reduced, sms = static_cast<uint64_t>(multiprocessors);
  if (column_reduction_row_bytes(g, id, channels_last) > 0) return outputs < 64 * sms && reduced > 128;
  return outputs < 2 * sms && reduced > 8192;
}

bool mix_order_reducible(uint64_t rows, uint64_t columns) {
  constexpr uint64_t kLeastElements = 5ull << 20;  // size_thres
  constexpr uint64_t kLeastRows = 4096;
  constexpr uint64_t kMostColumns = 16384;  // a persistent row reduction
  return rows >= kLeastRows && columns <= kMostColumns && rows >= 2 * columns && rows * columns >= kLeastElements;
}

}  // namespace pt
