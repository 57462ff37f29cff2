#include "prepare/derived_graph.h"

#include <stdexcept>
#include <string>

#include "graph/arena_graph.h"

namespace pt {

namespace {

// Rewrites the node references of one arg tree, without recursion.
void rewrite_refs(const Graph& g, proto::Arg* root, const std::vector<NodeId>& kept_as) {
  std::vector<proto::Arg*> stack{root};
  while (!stack.empty()) {
    proto::Arg* a = stack.back();
    stack.pop_back();
    if (a->kind_case() == proto::Arg::kNode) {
      const NodeId ref = g.find(a->node());
      if (ref != kNoNode && kept_as[ref] != ref) a->set_node(std::string(g[kept_as[ref]].name));
    } else if (a->kind_case() == proto::Arg::kList) {
      for (auto& item : *a->mutable_list()->mutable_items()) stack.push_back(&item);
    }
  }
}

bool reads_merged_node(const Node& n, const std::vector<NodeId>& kept_as) {
  for (NodeId in : n.inputs) {
    if (kept_as[in] != in) return true;
  }
  return false;
}

// Moves node `id`'s proto into the overlay (a copy) unless it is there.
proto::Node* own_proto(DerivedGraph& d, NodeId id) {
  Node& n = d.graph.nodes[id];
  if (n.proto_index < 0) return d.overlay->mutable_nodes(-1 - n.proto_index);
  proto::Node* copy = d.overlay->add_nodes();
  *copy = d.graph.message->nodes(n.proto_index);
  n.proto_index = -d.overlay->nodes_size();
  return copy;
}

}  // namespace

DerivedGraph derive_graph(const Graph& g, const std::vector<bool>& keep, const std::vector<NodeId>& kept_as) {
  DerivedGraph d;
  d.overlay = new_arena_graph();
  Graph& out = d.graph;
  out.message = g.message;
  out.overlay = d.overlay;
  out.packets = g.packets;
  out.source = g.source;
  out.num_fwd_outputs = g.num_fwd_outputs;

  std::vector<NodeId> new_id(static_cast<size_t>(g.size()), kNoNode);
  NodeId count = 0;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (keep[id]) new_id[id] = count++;
  }
  auto map = [&](NodeId ref) {
    const NodeId to = new_id[kept_as[ref]];
    if (to == kNoNode) throw std::logic_error("prepare: node '" + std::string(g[ref].name) + "' maps to a removed node");
    return to;
  };
  out.nodes.reserve(static_cast<size_t>(count));
  // Names do not change (rewritten copies keep theirs): share g's index,
  // its ids mapped to ours.
  out.by_name = g.by_name;
  out.by_name_remap.resize(g.by_name_remap.empty() ? new_id.size() : g.by_name_remap.size());
  for (size_t k = 0; k < out.by_name_remap.size(); ++k) {
    const NodeId in_g = g.by_name_remap.empty() ? static_cast<NodeId>(k) : g.by_name_remap[k];
    out.by_name_remap[k] = in_g == kNoNode ? kNoNode : new_id[static_cast<size_t>(in_g)];
  }
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!keep[id]) continue;
    Node n = g[id];
    for (NodeId& in : n.inputs) in = map(in);
    for (NodeId& in : n.positional_inputs) in = map(in);
    if (n.input_kind == InputKind::Primal) out.primals.push_back(new_id[id]);
    const bool rewrite = reads_merged_node(g[id], kept_as);
    out.nodes.push_back(std::move(n));
    if (rewrite) {
      proto::Node* pn = own_proto(d, new_id[id]);
      for (auto& arg : *pn->mutable_args()) rewrite_refs(g, &arg, kept_as);
      for (auto& [key, arg] : *pn->mutable_kwargs()) rewrite_refs(g, &arg, kept_as);
    }
  }
  out.users = distinct_users(out.nodes);
  out.outputs.reserve(g.outputs.size());
  for (NodeId o : g.outputs) out.outputs.push_back(o == kNoNode ? kNoNode : map(o));
  // As validation reads static_lifetime_input_indices: among the primals, in order.
  out.static_lifetime.assign(static_cast<size_t>(count), false);
  for (int64_t idx : g.message->static_lifetime_input_indices()) {
    if (idx < 0 || idx >= static_cast<int64_t>(out.primals.size())) throw std::logic_error("prepare: a primal was removed");
    out.static_lifetime[out.primals[static_cast<size_t>(idx)]] = true;
  }
  return d;
}

void set_recompute_tag(DerivedGraph& d, NodeId id, Recompute tag, const std::string& text) {
  d.graph.nodes[id].recompute = tag;
  own_proto(d, id)->set_recompute(text);
}

}  // namespace pt
