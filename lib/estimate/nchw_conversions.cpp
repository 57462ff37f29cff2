#include "estimate/nchw_conversions.h"

#include <algorithm>
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

}  // namespace

bool converts_nchw_layout(const Graph& g, NodeId op, const Flags& channels_last) {
  static const uint8_t kBfloat16 = dtype_code("bfloat16"), kFloat16 = dtype_code("float16");
  const Node& n = g[op];
  const bool backward = n.packet == "aten.convolution_backward";
  if (!backward && n.packet != "aten.convolution") return false;
  const size_t x_at = backward ? 1 : 0, weight_at = backward ? 2 : 1;
  if (n.positional_inputs.size() <= weight_at) return false;
  const NodeId x = n.positional_inputs[x_at];
  if (g[x].dtype != kBfloat16 && g[x].dtype != kFloat16) return false;
  const proto::Node x_record = g.record(x);
  const proto::Node w_record = g.record(n.positional_inputs[weight_at]);
  if (x_record.val().kind_case() != proto::Value::kTensor || w_record.val().kind_case() != proto::Value::kTensor) {
    return false;
  }
  const proto::TensorMeta& t = x_record.val().tensor();
  const proto::TensorMeta& w = w_record.val().tensor();
  if (t.shape_size() != 4 || w.shape_size() != 4) return false;
  if (w.shape(2) == 1 && w.shape(3) == 1 && !strided(g.record(op), backward)) return false;
  const bool cl = !channels_last.empty() && channels_last[x];
  // NCHW exactly where Inductor's strides differ from channels-last ones.
  return inductor_strides(t, cl) != inductor_strides(t, true);
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
