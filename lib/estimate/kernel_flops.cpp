#include "estimate/kernel_flops.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "analysis/flop_formulas.h"
#include "analysis/runtime_estimate.h"

namespace pt {

namespace {

using flops::Shape;

std::optional<Shape> tensor_shape(const proto::Value& v) {
  if (v.kind_case() != proto::Value::kTensor) return std::nullopt;
  const auto& s = v.tensor().shape();
  return Shape(s.begin(), s.end());
}

// The shape of positional input `index` of `id`.
std::optional<Shape> input_shape(const Graph& g, NodeId id, size_t index) {
  const Node& n = g[id];
  if (n.positional_inputs.size() <= index) return std::nullopt;
  return tensor_shape(g.record(n.positional_inputs[index]).val());
}

// A literal int at positional `index` or keyword `name`; nullopt otherwise.
std::optional<int64_t> int_arg(const proto::Node& pn, int index, std::string_view name) {
  const proto::Arg* a = index < pn.args_size() ? &pn.args(index) : find_kwarg(pn, name);
  if (!a || a->kind_case() != proto::Arg::kInt) return std::nullopt;
  return a->int_();
}

bool bool_arg(const proto::Node& pn, int index, std::string_view name) {
  const proto::Arg* a = index < pn.args_size() ? &pn.args(index) : find_kwarg(pn, name);
  return a && a->kind_case() == proto::Arg::kBool && a->bool_();
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride,
// padding, dilation, transposed, output_padding, groups, output_mask).
constexpr int kBackwardTransposed = 7, kBackwardGroups = 9, kBackwardMask = 10;
// convolution(input, weight, bias, stride, padding, dilation, transposed,
// output_padding, groups).
constexpr int kForwardTransposed = 6, kForwardGroups = 8;

// Item `item` of a convolution_backward's output_mask (0 the input
// gradient, 1 the weight's); nullopt where it is not a literal bool.
std::optional<bool> gradient_requested(const proto::Node& pn, int item) {
  const proto::Arg* a = kBackwardMask < pn.args_size() ? &pn.args(kBackwardMask) : find_kwarg(pn, "output_mask");
  if (!a || a->kind_case() != proto::Arg::kList || a->list().items_size() <= item) return std::nullopt;
  const proto::Arg& w = a->list().items(item);
  if (w.kind_case() != proto::Arg::kBool) return std::nullopt;
  return w.bool_();
}

// One gradient's FLOPs as PyTorch counts them (`input`: grad_input's, else
// grad_weight's, which counts groups times the work), with that gradient's
// shape from the node's tuple; 0 where a shape cannot be read.
double counted_gradient_term(const Graph& g, NodeId id, bool input) {
  const proto::Node& pn = g.record(id);
  const auto grad_out = input_shape(g, id, 0), x = input_shape(g, id, 1), w = input_shape(g, id, 2);
  const int item = input ? 0 : 1;
  if (!grad_out || !x || !w || pn.val().kind_case() != proto::Value::kTuple || pn.val().tuple().items_size() <= item) {
    return 0;
  }
  const auto grad = tensor_shape(pn.val().tuple().items(item));
  if (!grad) return 0;
  try {
    return static_cast<double>(flops::conv_backward(*grad_out, *x, *w, bool_arg(pn, kBackwardTransposed, "transposed"),
                                                    input, !input, input ? grad : std::nullopt,
                                                    input ? std::nullopt : grad));
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const std::overflow_error&) {
    return 0;
  }
}

// The weight gradient's GEMM writes output channels x (input channels x
// taps): the fewer of the two, in doubles (a malformed graph's sides could
// overflow their product), at most `out_channels`.
int64_t weight_gradient_width(int64_t out_channels, int64_t channels, double taps) {
  return static_cast<int64_t>(std::min(static_cast<double>(out_channels), static_cast<double>(channels) * taps));
}

}  // namespace

double kernel_flops(const Graph& g, NodeId id) {
  const double counted = count_flops_if_readable(g, id);
  if (counted == 0 || g[id].packet != "aten.convolution_backward") return counted;
  const proto::Node& pn = g.record(id);
  const auto groups = int_arg(pn, kBackwardGroups, "groups");
  if (!groups || *groups <= 1 || !gradient_requested(pn, 1).value_or(false)) return counted;
  const double weight_term = counted_gradient_term(g, id, false);
  if (weight_term == 0 || weight_term > counted) return counted;
  return counted - weight_term + weight_term / static_cast<double>(*groups);
}

bool is_depthwise_convolution(const Graph& g, NodeId id) {
  const Node& n = g[id];
  const bool backward = n.packet == "aten.convolution_backward";
  if (!backward && n.packet != "aten.convolution") return false;
  const proto::Node& pn = g.record(id);
  const auto groups = int_arg(pn, backward ? kBackwardGroups : kForwardGroups, "groups");
  if (!groups || *groups <= 1) return false;
  if (bool_arg(pn, backward ? kBackwardTransposed : kForwardTransposed, "transposed")) return false;
  const auto w = input_shape(g, id, backward ? 2 : 1);
  return w && w->size() >= 2 && (*w)[1] == 1;
}

std::vector<ConvolutionWork> convolution_kernels(const Graph& g, NodeId id) {
  const Node& n = g[id];
  const bool backward = n.packet == "aten.convolution_backward";
  if (!backward && n.packet != "aten.convolution") return {};
  const size_t weight_at = backward ? 2 : 1, x_at = backward ? 1 : 0;
  const auto w = input_shape(g, id, weight_at);
  if (!w || w->size() < 2) return {};
  const proto::Node& pn = g.record(id);
  const bool transposed = bool_arg(pn, backward ? kBackwardTransposed : kForwardTransposed, "transposed");
  const NodeId x_node = n.positional_inputs[x_at];
  const auto bytes_of = [&](NodeId v) { return static_cast<double>(g[v].size_bytes); };
  const double x_bytes = bytes_of(x_node), weight_bytes = bytes_of(n.positional_inputs[weight_at]);
  // Input channels per group: the weight's second axis (its first when
  // transposed).
  constexpr int64_t kTensorCoreChannels = 8;
  const int64_t channels = transposed ? (*w)[0] : (*w)[1];
  const bool narrow = channels < kTensorCoreChannels && !is_depthwise_convolution(g, id);
  const double x_elements = static_cast<double>(g[x_node].numel);
  const bool half = g[x_node].size_bytes == 2 * g[x_node].numel;  // a 16-bit input
  const double pad_bytes =
      narrow && channels > 0 && half
          ? x_bytes * (1 + static_cast<double>(kTensorCoreChannels) / static_cast<double>(channels))
          : 0;
  const bool depthwise = is_depthwise_convolution(g, id);
  const int64_t group_count = int_arg(pn, backward ? kBackwardGroups : kForwardGroups, "groups").value_or(1);
  const int64_t group_channels = group_count > 1 && !depthwise && !transposed ? channels : 0;
  const int64_t out_channels = transposed ? (*w)[1] : (*w)[0] / std::max<int64_t>(group_count, 1);
  if (!backward) {
    return {{ConvolutionKernel::Forward, kernel_flops(g, id), x_bytes + weight_bytes + bytes_of(id),
             static_cast<double>(g[id].numel), narrow, pad_bytes, group_channels, out_channels, half}};
  }
  const double groups = static_cast<double>(group_count);
  const NodeId grad_out = n.positional_inputs[0];
  const double grad_out_bytes = bytes_of(grad_out);
  double taps = 1;
  for (size_t i = 2; i < w->size(); ++i) taps *= static_cast<double>((*w)[i]);
  std::vector<ConvolutionWork> out;
  if (gradient_requested(pn, 0).value_or(true)) {
    const double work = depthwise ? 2 * taps * x_elements : counted_gradient_term(g, id, true);
    out.push_back({ConvolutionKernel::InputGradient, work, grad_out_bytes + weight_bytes + x_bytes, x_elements, narrow,
                   pad_bytes, group_channels, channels, half});
  }
  if (gradient_requested(pn, 1).value_or(true)) {
    out.push_back({ConvolutionKernel::WeightGradient, counted_gradient_term(g, id, false) / groups,
                   grad_out_bytes + x_bytes + weight_bytes, static_cast<double>(g[grad_out].numel), narrow, pad_bytes,
                   group_channels, weight_gradient_width(out_channels, channels, taps), half});
  }
  return out;
}

}  // namespace pt
