#include "graph/graph.h"

#include "graph/arena_graph.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace pt {

NodeId Graph::find(std::string_view name) const {
  if (!by_name) return kNoNode;
  const NodeId id = by_name->find(name);
  return id == kNoNode || by_name_remap.empty() ? id : by_name_remap[static_cast<size_t>(id)];
}

proto::Node Graph::record(NodeId id) const {
  proto::Node out;
  record_into(id, out);
  return out;
}

std::optional<proto::TensorMeta> tensor_meta(const Graph& g, NodeId id) {
  const proto::Node pn = g.record(id);
  if (pn.val().kind_case() != proto::Value::kTensor) return std::nullopt;
  return pn.val().tensor();
}

void Graph::record_into(NodeId id, proto::Node& out) const {
  const int k = nodes[static_cast<size_t>(id)].record_index;
  if (k >= 0) records->decode(k, out);
  else overlay->decode(-1 - k, out);
}

void Graph::record_bytes(NodeId id, std::string& out) const {
  const int k = nodes[static_cast<size_t>(id)].record_index;
  if (k >= 0) out.assign(records->bytes(k));
  else out.assign(overlay->bytes(-1 - k));
}

size_t Graph::record_size(NodeId id) const {
  const int k = nodes[static_cast<size_t>(id)].record_index;
  return k >= 0 ? records->bytes(k).size() : overlay->bytes(-1 - k).size();
}

UserLists::UserLists(const std::vector<Node>& nodes) {
  // Two passes over the inputs: count each node's distinct users (a node
  // reading X twice is one user; inputs arrive in graph order, so a repeat
  // is the last user recorded), then fill.
  const size_t count = nodes.size();
  std::vector<NodeId> last(count, kNoNode);
  start_.assign(count + 1, 0);
  for (NodeId id = 0; id < static_cast<NodeId>(count); ++id) {
    for (NodeId in : nodes[id].inputs) {
      if (last[in] == id) continue;
      last[in] = id;
      ++start_[static_cast<size_t>(in) + 1];
    }
  }
  uint64_t total = 0;
  for (size_t i = 1; i <= count; ++i) {
    total += start_[i];
    // 32-bit offsets: 4 * 10^9 (node, user) pairs would be a graph of
    // hundreds of GB; say so rather than wrap.
    if (total > UINT32_MAX) throw std::length_error("graph: more than 2^32 (node, user) pairs");
    start_[i] = static_cast<uint32_t>(total);
  }
  items_.resize(start_[count]);
  std::vector<uint32_t> fill(start_.begin(), start_.end() - 1);
  std::fill(last.begin(), last.end(), kNoNode);
  for (NodeId id = 0; id < static_cast<NodeId>(count); ++id) {
    for (NodeId in : nodes[id].inputs) {
      if (last[in] == id) continue;
      last[in] = id;
      items_[fill[in]++] = id;
    }
  }
}

std::shared_ptr<proto::Graph> graph_message(const Graph& g) {
  auto out = new_arena_graph();
  if (g.header) {
    out->set_name(g.header->name());
    out->set_num_fwd_outputs(g.header->num_fwd_outputs());
    *out->mutable_static_lifetime_input_indices() = g.header->static_lifetime_input_indices();
    *out->mutable_metadata() = g.header->metadata();
  }
  out->mutable_nodes()->Reserve(g.size());
  for (NodeId id = 0; id < g.size(); ++id) g.record_into(id, *out->add_nodes());
  return out;
}

const proto::Arg* find_kwarg(const proto::Node& node, std::string_view key) {
  const auto it = node.kwargs().find(std::string(key));
  return it == node.kwargs().end() ? nullptr : &it->second;
}

std::vector<int64_t> int_list_arg(const proto::Node& node, int index, std::string_view key) {
  const proto::Arg* a = index < node.args_size() ? &node.args(index) : find_kwarg(node, key);
  std::vector<int64_t> out;
  if (!a || a->kind_case() != proto::Arg::kList) return out;
  for (const proto::Arg& item : a->list().items()) {
    if (item.kind_case() != proto::Arg::kInt) return {};
    out.push_back(item.int_());
  }
  return out;
}

std::vector<std::pair<const std::string*, const proto::Arg*>> kwargs_by_key(const proto::Node& node) {
  return kwargs_by_key(node.kwargs());
}

std::vector<std::pair<const std::string*, const proto::Arg*>> kwargs_by_key(
    const google::protobuf::Map<std::string, proto::Arg>& kwargs) {
  std::vector<std::pair<const std::string*, const proto::Arg*>> out;
  out.reserve(kwargs.size());
  for (const auto& [key, arg] : kwargs) out.emplace_back(&key, &arg);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
  return out;
}

std::string_view packet_of(std::string_view target) {
  // Python callables (operator.mul, math.ceil, torch.sym_float,
  // torch.fx.experimental.sym_node.<lambda>) and higher-order ops are their
  // own packet, as PyTorch's get_aten_target returns them unchanged.
  for (std::string_view prefix : {"operator.", "builtins.", "math.", "torch.", "higher_order."}) {
    if (target.starts_with(prefix)) return target;
  }
  // Operator overloads are namespace.packet.overload: drop the overload.
  const auto first = target.find('.');
  const auto last = target.rfind('.');
  if (first == std::string_view::npos || first == last) return target;
  return target.substr(0, last);
}

}  // namespace pt
