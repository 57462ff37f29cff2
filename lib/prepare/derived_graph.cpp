#include "prepare/derived_graph.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/record_edit.h"

namespace pt {

namespace {

bool reads_merged_node(const Node& n, const std::vector<NodeId>& kept_as) {
  for (NodeId in : n.inputs) {
    if (kept_as[in] != in) return true;
  }
  return false;
}

// Changes node `id`'s record: `edit` maps its bytes to the new ones
// (record_edit.h), kept in the overlay (replacing its earlier copy there,
// if any).
template <typename Edit>
void edit_record(DerivedGraph& d, NodeId id, const Edit& edit) {
  Node& n = d.graph.nodes[id];
  std::string record = edit(d.graph.record_bytes(id));
  if (n.record_index < 0) {
    d.overlay->set_owned(static_cast<size_t>(-1 - n.record_index), std::move(record));
  } else {
    d.overlay->add_owned(std::move(record));
    n.record_index = -static_cast<int>(d.overlay->size());
  }
}

// Node `id`'s record with each reference to a merged node renamed to the
// node it merged into. `id` is the derived graph's, its inputs still the
// source's ids. Every reference in a record is one of the node's inputs
// (validation), so a reference is compared with the names of the few merged
// inputs instead of looked up in the name index: at 10^6 nodes each lookup
// missed the cache at its slot and at the name's bytes (51,000 records).
template <typename NameOf>
void rewrite_node_refs(DerivedGraph& d, NodeId id, const std::vector<NodeId>& kept_as, const NameOf& name_of,
                       std::vector<std::pair<std::string_view, std::string_view>>& merged) {
  merged.clear();
  for (NodeId in : d.graph.nodes[id].inputs) {
    if (kept_as[in] != in) merged.emplace_back(name_of(in), name_of(kept_as[in]));
  }
  const RenameRef rename = [&](std::string_view name) -> std::string_view {
    for (const auto& [from, to] : merged) {
      if (name == from) return to;
    }
    return {};
  };
  edit_record(d, id, [&](std::string_view record) { return rename_node_refs(record, rename); });
}

// What both variants share: the header, the new ids, the name index remap.
struct Plan {
  std::vector<NodeId> new_id;  // per source node: its id in the derived graph, or kNoNode
  NodeId count = 0;
};

DerivedGraph begin_derived(const Graph& g, const Flags& keep, Plan& plan) {
  DerivedGraph d;
  d.overlay = std::make_shared<NodeRecords>();
  Graph& out = d.graph;
  out.header = g.header;
  out.records = g.records;
  out.overlay = d.overlay;
  out.packets = g.packets;
  out.source = g.source;
  out.num_fwd_outputs = g.num_fwd_outputs;
  plan.new_id.assign(static_cast<size_t>(g.size()), kNoNode);
  for (NodeId id = 0; id < g.size(); ++id) {
    if (keep[id]) plan.new_id[id] = plan.count++;
  }
  // Names do not change (rewritten copies keep theirs): share g's index,
  // its ids mapped to ours.
  out.by_name = g.by_name;
  out.by_name_remap.resize(g.by_name_remap.empty() ? plan.new_id.size() : g.by_name_remap.size());
  for (size_t k = 0; k < out.by_name_remap.size(); ++k) {
    const NodeId in_g = g.by_name_remap.empty() ? static_cast<NodeId>(k) : g.by_name_remap[k];
    out.by_name_remap[k] = in_g == kNoNode ? kNoNode : plan.new_id[static_cast<size_t>(in_g)];
  }
  return d;
}

// The derived nodes' references, mapped to the new ids, into one block of
// the derived graph's own (the source's blocks hold the old ids).
template <typename Map>
void map_references(const Map& map, Graph& out) {
  size_t total = 0;
  for (const Node& n : out.nodes) total += n.inputs.size() + n.positional_inputs.size();
  RefBlockWriter writer(total);
  std::vector<NodeId> mapped;
  auto remap = [&](NodeRefs refs) {
    mapped.clear();
    for (NodeId in : refs) mapped.push_back(map(in));
    return writer.add(mapped);
  };
  for (Node& n : out.nodes) {
    n.inputs = remap(n.inputs);
    n.positional_inputs = remap(n.positional_inputs);
  }
  out.ref_blocks = writer.take();
}

// References, users, outputs and static lifetimes of the derived nodes.
template <typename Map>
void finish_derived(const Graph& g, const Plan& plan, const Map& map, DerivedGraph& d) {
  Graph& out = d.graph;
  map_references(map, out);
  out.users = UserLists(out.nodes);
  out.outputs.reserve(g.outputs.size());
  for (NodeId o : g.outputs) out.outputs.push_back(o == kNoNode ? kNoNode : map(o));
  // As validation reads static_lifetime_input_indices: among the primals, in order.
  out.static_lifetime.assign(static_cast<size_t>(plan.count), false);
  for (int64_t idx : g.header->static_lifetime_input_indices()) {
    if (idx < 0 || idx >= static_cast<int64_t>(out.primals.size())) throw std::logic_error("prepare: a primal was removed");
    out.static_lifetime[out.primals[static_cast<size_t>(idx)]] = true;
  }
}

template <typename NameOf>
auto reference_map(const Plan& plan, const std::vector<NodeId>& kept_as, const NameOf& name_of) {
  return [&plan, &kept_as, &name_of](NodeId ref) {
    const NodeId to = plan.new_id[kept_as[ref]];
    if (to == kNoNode) {
      throw std::logic_error("prepare: node '" + std::string(name_of(ref)) + "' maps to a removed node");
    }
    return to;
  };
}

}  // namespace

DerivedGraph derive_graph(const Graph& g, const Flags& keep, const std::vector<NodeId>& kept_as) {
  Plan plan;
  DerivedGraph d = begin_derived(g, keep, plan);
  auto name_of = [&g](NodeId id) { return g[id].name; };
  const auto map = reference_map(plan, kept_as, name_of);
  Graph& out = d.graph;
  std::vector<std::pair<std::string_view, std::string_view>> merged;  // rewrite_node_refs' scratch
  out.nodes.reserve(static_cast<size_t>(plan.count));
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!keep[id]) continue;
    Node n = g[id];  // its references mapped in finish_derived
    if (n.input_kind == InputKind::Primal) out.primals.push_back(plan.new_id[id]);
    const bool rewrite = reads_merged_node(g[id], kept_as);
    out.nodes.push_back(std::move(n));
    if (rewrite) rewrite_node_refs(d, plan.new_id[id], kept_as, name_of, merged);
  }
  finish_derived(g, plan, map, d);
  return d;
}

DerivedGraph derive_graph_consuming(Graph& g, const Flags& keep, const std::vector<NodeId>& kept_as) {
  Plan plan;
  DerivedGraph d = begin_derived(g, keep, plan);
  // Names view the shared message: kept by index, as nodes move down.
  std::vector<std::string_view> names(static_cast<size_t>(g.size()));
  for (NodeId id = 0; id < g.size(); ++id) names[id] = g[id].name;
  auto name_of = [&names](NodeId id) { return names[id]; };
  const auto map = reference_map(plan, kept_as, name_of);
  g.users = {};  // rebuilt below from the derived nodes
  Graph& out = d.graph;
  std::vector<NodeId> rewritten;
  const NodeId n_source = g.size();
  for (NodeId id = 0; id < n_source; ++id) {
    if (!keep[id]) continue;
    Node& n = g.nodes[id];
    if (reads_merged_node(n, kept_as)) rewritten.push_back(plan.new_id[id]);
    if (n.input_kind == InputKind::Primal) out.primals.push_back(plan.new_id[id]);
    // new_id[id] <= id: the slot it moves to is done with.
    if (plan.new_id[id] != id) g.nodes[plan.new_id[id]] = std::move(n);
  }
  g.nodes.resize(static_cast<size_t>(plan.count));  // capacity kept: shrinking would copy them all
  out.nodes = std::move(g.nodes);
  g.nodes = {};
  std::vector<std::pair<std::string_view, std::string_view>> merged;  // rewrite_node_refs' scratch
  for (NodeId nid : rewritten) rewrite_node_refs(d, nid, kept_as, name_of, merged);
  finish_derived(g, plan, map, d);
  g.outputs = {};
  g.primals = {};
  g.static_lifetime = {};
  g.ref_blocks = {};
  return d;
}

void set_recompute_tag(DerivedGraph& d, NodeId id, Recompute tag, const std::string& text) {
  d.graph.nodes[id].recompute = tag;
  constexpr uint32_t kRecompute = 9;  // Node.recompute in schemas/graph.proto
  edit_record(d, id, [&](std::string_view record) { return with_string_field(record, kRecompute, text); });
}

}  // namespace pt
