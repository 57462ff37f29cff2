#include "prepare/rebuild.h"

#include <string>

#include <google/protobuf/arena.h>

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
      if (ref != kNoNode && kept_as[ref] != ref) a->set_node(g[kept_as[ref]].name);
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

// The new message lives on an arena: copying ~10^6 nodes field by field and
// freeing them later would otherwise be dominated by malloc/free. The
// returned pointer shares ownership of the arena.
struct ArenaGraph {
  google::protobuf::Arena arena;
  proto::Graph* graph = google::protobuf::Arena::CreateMessage<proto::Graph>(&arena);
};

}  // namespace

std::shared_ptr<proto::Graph> rebuild_message(const Graph& g, const std::vector<bool>& keep,
                                              const std::vector<NodeId>& kept_as) {
  const proto::Graph& src = *g.message;
  auto holder = std::make_shared<ArenaGraph>();
  std::shared_ptr<proto::Graph> out(holder, holder->graph);
  out->set_name(src.name());
  out->set_num_fwd_outputs(src.num_fwd_outputs());
  *out->mutable_static_lifetime_input_indices() = src.static_lifetime_input_indices();
  *out->mutable_metadata() = src.metadata();
  out->mutable_nodes()->Reserve(g.size());
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!keep[id]) continue;
    proto::Node* pn = out->add_nodes();
    *pn = g.proto_node(id);
    if (!reads_merged_node(g[id], kept_as)) continue;
    for (auto& arg : *pn->mutable_args()) rewrite_refs(g, &arg, kept_as);
    for (auto& [key, arg] : *pn->mutable_kwargs()) rewrite_refs(g, &arg, kept_as);
  }
  return out;
}

}  // namespace pt
