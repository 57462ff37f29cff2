#include "prepare/derived_graph.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/record_store.h"
#include "node_records.pb.h"

namespace pt {

namespace {

// Makes `record` node `id`'s record: appended to the overlay (a record
// changed twice leaves its first change unread there).
void set_record(DerivedGraph& d, NodeId id, const proto::Node& record) {
  d.overlay->append(record);
  d.graph.nodes[static_cast<size_t>(id)].record_index = -d.overlay->size();
}

// What both variants share: the header, the new ids, the name index remap.
struct Plan {
  std::vector<NodeId> new_id;  // per source node: its id in the derived graph, or kNoNode
  NodeId count = 0;
};

DerivedGraph begin_derived(const Graph& g, const Flags& keep, Plan& plan) {
  DerivedGraph d;
  d.overlay = std::make_shared<RecordStore>();
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

// The kept nodes whose records change: those that read a merged node. And
// the check that every reference of a kept node (and every graph output)
// maps to a kept node, so that the mapping below cannot fail once nodes
// have moved (their names are read here, in place).
std::vector<NodeId> nodes_reading_merged(const Graph& g, const Flags& keep, const std::vector<NodeId>& kept_as,
                                         const Plan& plan) {
  auto check = [&](NodeId ref) {
    if (plan.new_id[kept_as[ref]] == kNoNode) {
      throw std::logic_error("prepare: node '" + std::string(g[ref].name) + "' maps to a removed node");
    }
  };
  std::vector<NodeId> out;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!keep[id]) continue;
    bool reads_merged = false;
    for (NodeId in : g[id].inputs) {
      check(in);
      reads_merged = reads_merged || kept_as[in] != in;
    }
    if (reads_merged) out.push_back(id);
  }
  for (NodeId o : g.outputs) {
    if (o != kNoNode) check(o);
  }
  return out;
}

// Node references in `arg` (nested lists included) renamed as `merged`
// pairs (old name, new name) say.
using MergedNames = std::vector<std::pair<std::string_view, std::string_view>>;
void rename_refs(proto::Arg& arg, const MergedNames& merged) {
  if (arg.kind_case() == proto::Arg::kNode) {
    for (const auto& [old_name, new_name] : merged) {
      if (arg.node() == old_name) {
        arg.set_node(std::string(new_name));
        return;
      }
    }
  } else if (arg.kind_case() == proto::Arg::kList) {
    for (proto::Arg& item : *arg.mutable_list()->mutable_items()) rename_refs(item, merged);
  }
}

// Copies of the records of `ids` (source nodes, in place) in the overlay,
// each reference to a merged node renamed to the node it merged into; the
// copies' overlay indices, in the order of `ids`. Every reference in a
// record is one of the node's inputs (validation), so a reference is
// compared with the names of the few merged inputs.
std::vector<int> renamed_records(const Graph& g, const std::vector<NodeId>& ids, const std::vector<NodeId>& kept_as,
                                 RecordStore& overlay) {
  std::vector<int> out;
  out.reserve(ids.size());
  MergedNames merged;
  // Only the call changes: the record is read through NodeCall, its value
  // and tags kept as their bytes (node_records.proto), as the partition
  // writer keeps them.
  std::string bytes;
  proto::NodeCall copy;
  for (NodeId id : ids) {
    merged.clear();
    for (NodeId in : g[id].inputs) {
      if (kept_as[in] != in) merged.emplace_back(g[in].name, g[kept_as[in]].name);
    }
    g.record_bytes(id, bytes);
    if (!copy.ParseFromString(bytes)) throw std::logic_error("prepare: a stored record does not parse");
    for (proto::Arg& arg : *copy.mutable_args()) rename_refs(arg, merged);
    for (auto& [key, arg] : *copy.mutable_kwargs()) rename_refs(arg, merged);
    overlay.append(copy);
    out.push_back(-overlay.size());
  }
  return out;
}

// The derived nodes' references, mapped to the new ids, into one block of
// the derived graph's own (the source's blocks hold the old ids).
template <typename Map>
void map_references(const Map& map, Graph& out) {
  size_t total = 0;
  for (const Node& n : out.nodes) total += n.inputs.size() + n.positional_inputs.size();
  const auto block = std::make_shared_for_overwrite<NodeId[]>(total);
  NodeId* at = block.get();
  auto remap = [&](NodeRefs refs) {
    NodeId* const start = at;
    for (NodeId in : refs) *at++ = map(in);
    return NodeRefs(start, refs.size());
  };
  for (Node& n : out.nodes) {
    n.inputs = remap(n.inputs);
    n.positional_inputs = remap(n.positional_inputs);
  }
  out.ref_blocks = {block};
}

// References, users, outputs and static lifetimes of the derived nodes.
void finish_derived(const Graph& g, const Plan& plan, const std::vector<NodeId>& kept_as, DerivedGraph& d) {
  // nodes_reading_merged checked that every reference maps to a kept node.
  const auto map = [&](NodeId ref) { return plan.new_id[kept_as[ref]]; };
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

}  // namespace

DerivedGraph derive_graph(const Graph& g, const Flags& keep, const std::vector<NodeId>& kept_as) {
  Plan plan;
  DerivedGraph d = begin_derived(g, keep, plan);
  const std::vector<NodeId> rewritten = nodes_reading_merged(g, keep, kept_as, plan);
  const std::vector<int> records = renamed_records(g, rewritten, kept_as, *d.overlay);
  Graph& out = d.graph;
  out.nodes.reserve(static_cast<size_t>(plan.count));
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!keep[id]) continue;
    out.nodes.push_back(g[id]);  // its references mapped in finish_derived
    if (g[id].input_kind == InputKind::Primal) out.primals.push_back(plan.new_id[id]);
  }
  for (size_t k = 0; k < rewritten.size(); ++k) out.nodes[plan.new_id[rewritten[k]]].record_index = records[k];
  finish_derived(g, plan, kept_as, d);
  return d;
}

DerivedGraph derive_graph_consuming(Graph& g, const Flags& keep, const std::vector<NodeId>& kept_as) {
  Plan plan;
  DerivedGraph d = begin_derived(g, keep, plan);
  // Names and records are read while the nodes are still in place.
  const std::vector<NodeId> rewritten = nodes_reading_merged(g, keep, kept_as, plan);
  const std::vector<int> records = renamed_records(g, rewritten, kept_as, *d.overlay);
  for (size_t k = 0; k < rewritten.size(); ++k) g.nodes[rewritten[k]].record_index = records[k];
  g.users = {};  // rebuilt below from the derived nodes
  Graph& out = d.graph;
  const NodeId n_source = g.size();
  for (NodeId id = 0; id < n_source; ++id) {
    if (!keep[id]) continue;
    Node& n = g.nodes[id];
    if (n.input_kind == InputKind::Primal) out.primals.push_back(plan.new_id[id]);
    // new_id[id] <= id: the slot it moves to is done with.
    if (plan.new_id[id] != id) g.nodes[plan.new_id[id]] = std::move(n);
  }
  g.nodes.resize(static_cast<size_t>(plan.count));  // capacity kept: shrinking would copy them all
  out.nodes = std::move(g.nodes);
  g.nodes = {};
  finish_derived(g, plan, kept_as, d);
  g.outputs = {};
  g.primals = {};
  g.static_lifetime = {};
  g.ref_blocks = {};
  return d;
}

void set_recompute_tag(DerivedGraph& d, NodeId id, Recompute tag, const std::string& text) {
  d.graph.nodes[id].recompute = tag;
  proto::Node record = d.graph.record(id);
  record.set_recompute(text);
  set_record(d, id, record);
}

}  // namespace pt
