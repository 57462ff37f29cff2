#include "prepare/recompute_tags.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace pt {

namespace {

bool must_recompute(Recompute r) { return r == Recompute::MustRecompute || r == Recompute::PreferRecompute; }

// The node passed as args[k], if that arg is a node reference.
NodeId arg_node(const Graph& g, NodeId id, int k) {
  const proto::Node& pn = g.record(id);
  if (pn.args_size() <= k || pn.args(k).kind_case() != proto::Arg::kNode) return kNoNode;
  return g.find(pn.args(k).node());
}

// Working tags: each pass sees what the earlier ones set. Reading every
// node's tag, the constructor also lists the nodes the collective and
// effectful-op passes look at (both rare): at 10^6 nodes each pass over the
// node array streams 128 MB, and three of them (the tags, the packets, the
// targets) were 30-35 ms of prepare. The changes are kept as a list, not a
// reason per node (8 MB at 10^6 nodes).
class Tags {
 public:
  explicit Tags(const Graph& g) : tags_(static_cast<size_t>(g.size())) {
    for (NodeId id = 0; id < g.size(); ++id) {
      const Node& n = g[id];
      tags_[id] = n.recompute;
      if (n.op != OpKind::CallFunction) continue;
      // The packet starts as the target does and stays in cache; the
      // target's text, read for every node, was a cache miss each on 10^6
      // nodes.
      if (n.packet.starts_with("_c10d_functional.")) collectives_.push_back(id);
      if (n.packet == "higher_order.with_effects") effectful_.push_back(id);
    }
  }
  Recompute operator[](NodeId id) const { return tags_[id]; }
  bool recompute(NodeId id) const { return must_recompute(tags_[id]); }
  void must_save(NodeId id, const char* why) {
    if (tags_[id] == Recompute::MustSave) return;  // already MUST_SAVE: the first reason stays
    tags_[id] = Recompute::MustSave;
    changes_.emplace_back(id, why);
  }
  // In node order.
  std::vector<TagChange> changes() const {
    std::vector<std::pair<NodeId, const char*>> sorted = changes_;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<TagChange> out;
    for (const auto& [id, why] : sorted) out.push_back({id, why});
    return out;
  }
  // Call nodes whose packet is a collective's (_c10d_functional.*) or
  // higher_order.with_effects, in node order.
  const std::vector<NodeId>& collectives() const { return collectives_; }
  const std::vector<NodeId>& effectful() const { return effectful_; }

 private:
  std::vector<Recompute> tags_;
  std::vector<std::pair<NodeId, const char*>> changes_;  // each node once
  std::vector<NodeId> collectives_, effectful_;
};

void cleanup_checkpoint_tags(const Graph& g, bool default_partition, Tags& tags) {
  bool any = false;
  for (NodeId id = 0; id < g.size() && !any; ++id) any = tags.recompute(id);
  if (!any) return;
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g[id];
    const auto& users = g.users[id];
    bool user_recomputes = false;
    for (NodeId u : users) user_recomputes = user_recomputes || tags.recompute(u);
    if (tags.recompute(id)) {
      // Two adjacent checkpointed regions with nothing in between: the value
      // crossing the boundary is stashed rather than recomputed.
      for (NodeId u : users) {
        if (tags.recompute(u) && n.has_ac_graph_id && g[u].has_ac_graph_id && g[u].ac_graph_id > n.ac_graph_id) {
          tags.must_save(id, "checkpoint region boundary");
        }
      }
      // A region output with a backward hook (FSDP2 + checkpointing) would
      // otherwise depend on its own gradient.
      if (n.has_backward_hook && !user_recomputes) tags.must_save(id, "backward hook on a checkpointed output");
    } else if (default_partition && !n.has_ac_graph_id && user_recomputes) {
      // Getitems of a checkpointed multi-output (non-tensor) node are not
      // region inputs.
      const NodeId source = n.packet == "operator.getitem" ? arg_node(g, id, 0) : kNoNode;
      const bool checkpointed_getitem =
          source != kNoNode && g[source].value_kind != ValueKind::Tensor && g[source].has_ac_graph_id;
      if (!checkpointed_getitem) tags.must_save(id, "input of a checkpointed region");
    }
  }
}

void save_collectives(Tags& tags) {
  for (NodeId id : tags.collectives()) {
    if (!tags.recompute(id)) tags.must_save(id, "collective");
  }
}

void save_effectful_outputs(const Graph& g, Tags& tags) {
  std::vector<NodeId> work;
  for (NodeId id : tags.effectful()) {
    const Node& n = g[id];
    if (tags.recompute(id) || n.tag == PartitionerTag::IsBackward) continue;
    // Every getitem reachable through getitems; the non-tuple ones are results.
    work.assign(1, id);
    while (!work.empty()) {
      const NodeId cur = work.back();
      work.pop_back();
      for (NodeId u : g.users[cur]) {
        if (g[u].target != "operator.getitem") continue;
        work.push_back(u);
        if (g[u].value_kind != ValueKind::Tuple) tags.must_save(u, "output of an effectful op");
      }
    }
  }
}

void save_bw_mutation_sources(const Graph& g, Tags& tags) {
  // AOT autograd emits the input mutations (copy_) at the very end of the
  // joint graph, so only that trailing run is read, backwards.
  std::unordered_set<NodeId> mutated_in_bw;
  for (NodeId id = g.size() - 1; id >= 0; --id) {
    const Node& n = g[id];
    if (n.op == OpKind::Output) continue;
    if (n.target != "aten.copy_.default") break;
    const NodeId dest = arg_node(g, id, 0);
    if (dest == kNoNode) continue;
    if (n.tag == PartitionerTag::MustBeInBackward) mutated_in_bw.insert(dest);
    if (n.tag == PartitionerTag::MustBeInForward && mutated_in_bw.count(dest)) {
      const NodeId src = arg_node(g, id, 1);
      if (src != kNoNode) tags.must_save(src, "source of a forward copy_ into an input mutated in the backward");
    }
  }
}

}  // namespace

std::vector<TagChange> must_save_changes(const Graph& g, const RecomputeTagOptions& options) {
  Tags tags(g);
  cleanup_checkpoint_tags(g, options.default_partition, tags);
  if (options.force_save_collectives) save_collectives(tags);
  save_effectful_outputs(g, tags);
  save_bw_mutation_sources(g, tags);
  return tags.changes();
}

}  // namespace pt
