#include "estimate/nchw_conversions.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "estimate/inductor_layout.h"
#include "estimate/kernel_flops.h"
#include "graph/dtype.h"

namespace pt {

namespace {

// Whether a convolution's stride (positional 3 of aten.convolution, 4 of
// convolution_backward, or keyword `stride`) is literal and over 1.
bool strided(const proto::Node& pn, bool backward) {
  const std::vector<int64_t> stride = int_list_arg(pn, backward ? 4 : 3, "stride");
  return std::any_of(stride.begin(), stride.end(), [](int64_t s) { return s > 1; });
}

// The tensor metadata of a 16-bit convolution's input and filter, both
// 4-D, where Inductor lays the input out NCHW (its strides differ from
// channels-last ones); nothing otherwise.
struct KeptNchw {
  proto::TensorMeta x, w;
};
std::optional<KeptNchw> kept_nchw(const Graph& g, NodeId op, const Flags& channels_last) {
  static const uint8_t kBfloat16 = dtype_code("bfloat16"), kFloat16 = dtype_code("float16");
  const Node& n = g[op];
  const bool backward = n.packet == "aten.convolution_backward";
  if (!backward && n.packet != "aten.convolution") return std::nullopt;
  const size_t x_at = backward ? 1 : 0, weight_at = backward ? 2 : 1;
  if (n.positional_inputs.size() <= weight_at) return std::nullopt;
  const NodeId x = n.positional_inputs[x_at];
  if (g[x].dtype != kBfloat16 && g[x].dtype != kFloat16) return std::nullopt;
  const proto::Node x_record = g.record(x);
  const proto::Node w_record = g.record(n.positional_inputs[weight_at]);
  if (x_record.val().kind_case() != proto::Value::kTensor || w_record.val().kind_case() != proto::Value::kTensor) {
    return std::nullopt;
  }
  KeptNchw out{x_record.val().tensor(), w_record.val().tensor()};
  if (out.x.shape_size() != 4 || out.w.shape_size() != 4) return std::nullopt;
  const bool cl = !channels_last.empty() && channels_last[x];
  // NCHW exactly where Inductor's strides differ from channels-last ones.
  if (inductor_strides(out.x, cl) == inductor_strides(out.x, true)) return std::nullopt;
  return out;
}

bool one_by_one(const proto::TensorMeta& w) { return w.shape(2) == 1 && w.shape(3) == 1; }

}  // namespace

bool converts_nchw_layout(const Graph& g, NodeId op, const Flags& channels_last) {
  const auto kept = kept_nchw(g, op, channels_last);
  if (!kept) return false;
  return !one_by_one(kept->w) || strided(g.record(op), g[op].packet == "aten.convolution_backward");
}

bool misaligned_nchw_gemm(const Graph& g, NodeId op, const Flags& channels_last) {
  constexpr int64_t kAlignedPixels = 8;  // 16 bytes of 16-bit elements
  const auto kept = kept_nchw(g, op, channels_last);
  if (!kept || !one_by_one(kept->w) || strided(g.record(op), g[op].packet == "aten.convolution_backward")) {
    return false;
  }
  // Modulo first: a malformed graph's sides could overflow their product.
  const auto side = [](int64_t n) { return static_cast<uint64_t>(n) % kAlignedPixels; };
  return side(kept->x.shape(2)) * side(kept->x.shape(3)) % kAlignedPixels != 0;
}

double nchw_conversion_seconds(const Graph& g, NodeId op, const Flags& channels_last, const Device& device,
                               const BandwidthOptions& o) {
  if (!o.nchw_layout_conversions || device.nchw_conversion_fraction <= 0) return 0;
  if (!converts_nchw_layout(g, op, channels_last)) return 0;
  const double bandwidth = device.bytes_per_second * device.memory_efficiency * device.nchw_conversion_fraction;
  // Two read (activation and filter), one written; a 1x1 filter reads
  // the same in either layout and is not converted.
  const proto::Node w_record = g.record(g[op].positional_inputs[g[op].packet == "aten.convolution" ? 1 : 2]);
  const proto::TensorMeta& w = w_record.val().tensor();
  const double tensors_per_kernel = w.shape(2) == 1 && w.shape(3) == 1 ? 2 : 3;
  double seconds = 0;
  for (const ConvolutionWork& k : convolution_kernels(g, op)) {
    seconds += 2 * k.bytes / bandwidth + tensors_per_kernel * device.kernel_latency_seconds;
  }
  return seconds;
}

}  // namespace pt
