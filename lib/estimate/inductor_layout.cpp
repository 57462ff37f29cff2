#include "estimate/inductor_layout.h"

#include <algorithm>
#include <string_view>


namespace pt {

namespace {

// Inductor skips the optimization where convolutions are this rare: one
// per 300 nodes of the forward graph or fewer (a vision transformer's patch
// embedding).
constexpr int64_t kNodesPerConvolution = 300;
constexpr int64_t kSmallChannels = 64;

// A node of the forward graph Inductor compiles: the primals and the
// nodes not tagged for the backward (an untagged graph counts whole, which
// only makes the rarity rule stricter).
bool in_forward(const Node& n) {
  if (n.op == OpKind::Placeholder) return n.input_kind == InputKind::Primal || n.input_kind == InputKind::FwdSeed;
  return n.op != OpKind::Output && n.tag != PartitionerTag::IsBackward && n.tag != PartitionerTag::MustBeInBackward;
}

// Ops whose result does not take its input's layout (channels_last_values).
constexpr std::string_view kLayoutEnds[] = {
    "aten.view", "aten._unsafe_view", "aten.reshape", "aten.mm", "aten.bmm", "aten.addmm", "aten.matmul",
};

bool ends_layout(const Node& n) {
  return std::find(std::begin(kLayoutEnds), std::end(kLayoutEnds), n.packet) != std::end(kLayoutEnds);
}

}  // namespace

bool inductor_lays_out_channels_last(const Graph& g) {
  int64_t forward_nodes = 0, convolutions = 0;
  bool all_small = true;
  for (NodeId id = 0; id < static_cast<NodeId>(g.nodes.size()); ++id) {
    const Node& n = g[id];
    if (!in_forward(n)) continue;
    ++forward_nodes;
    if (n.packet != "aten.convolution" || n.positional_inputs.size() < 2) continue;
    ++convolutions;
    const proto::Node weight_record = g.record(n.positional_inputs[1]);
    if (weight_record.val().kind_case() != proto::Value::kTensor) return false;
    const auto& w = weight_record.val().tensor().shape();  // out, in per group, kernel...
    if (w.size() < 3) return false;
    const proto::Node record = g.record(id);
    const int64_t groups =
        record.args_size() > 8 && record.args(8).kind_case() == proto::Arg::kInt ? record.args(8).int_() : 1;
    if (groups > 1 && w[1] > 1) return false;        // grouped, several channels per group
    if (w[0] * 2 <= w[1] && w[2] > 1) return false;  // a wider kernel narrowing the channels
    all_small = all_small && w[0] <= kSmallChannels && w[1] <= kSmallChannels;
  }
  return convolutions > 0 && forward_nodes < kNodesPerConvolution * convolutions && !all_small;
}

Flags channels_last_values(const Graph& g) {
  if (!inductor_lays_out_channels_last(g)) return {};
  const auto n = static_cast<NodeId>(g.nodes.size());
  Flags cl(static_cast<size_t>(n), false);
  auto propagates = [&](NodeId id) { return in_forward(g[id]) && g[id].packet != "aten.bmm"; };
  // Inductor's first pass, last node first: convolutions, and what a
  // member reads.
  NodeId last_conv = kNoNode;
  for (NodeId id = n - 1; id >= 0; --id) {
    const Node& node = g[id];
    if (!in_forward(node)) continue;
    if (node.packet == "aten.convolution") {
      cl[id] = true;
      if (last_conv == kNoNode) last_conv = id;
    } else if (propagates(id)) {
      for (NodeId u : g.users[id]) {
        if (cl[u] && in_forward(g[u])) {
          cl[id] = true;
          break;
        }
      }
    }
  }
  // Its second pass, in order up to the last convolution: what a member feeds.
  for (NodeId id = 0; id < n && id != last_conv; ++id) {
    if (!cl[id] || !in_forward(g[id])) continue;
    for (NodeId u : g.users[id]) {
      if (propagates(u)) cl[u] = true;
    }
  }
  // Then a value computed from one that has the layout has it, except
  // through a view or a matmul, which changes the rank or the shape the
  // layout is of (an attention score computed from a convolution's output
  // through a 3-D matmul keeps its recorded strides). Only 4-D values are
  // read with the layout (inductor_strides).
  for (NodeId id = 0; id < n; ++id) {
    if (cl[id] || ends_layout(g[id])) continue;
    for (NodeId x : g[id].inputs) {
      if (x >= 0 && cl[x]) {
        cl[id] = true;
        break;
      }
    }
  }
  return cl;
}

Flags channels_last_values(const Graph& g, const BandwidthOptions& o) {
  return o.inductor_layout_optimization ? channels_last_values(g) : Flags{};
}

std::vector<int64_t> inductor_strides(const proto::TensorMeta& t, bool channels_last) {
  std::vector<int64_t> strides(t.stride().begin(), t.stride().end());
  if (!channels_last || t.shape_size() != 4 || t.shape(1) <= 1) return strides;
  // Contiguous NCHW (as a value without recorded strides is): each stride
  // the product of the sizes inside it.
  if (!strides.empty()) {
    if (strides.size() != 4) return strides;
    int64_t expected = 1;
    for (int d = 3; d >= 0; --d) {
      if (t.shape(d) != 1 && strides[static_cast<size_t>(d)] != expected) return strides;
      expected *= t.shape(d);
    }
  }
  const int64_t c = t.shape(1), h = t.shape(2), w = t.shape(3);
  return {c * h * w, 1, w * c, c};
}

}  // namespace pt
