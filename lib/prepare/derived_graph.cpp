#include "prepare/derived_graph.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/record_edit.h"
#include "graph/side_by_side.h"

namespace pt {

namespace {

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

// The records of `ids` (source nodes, in place) with each reference to a
// merged node renamed to the node it merged into. Every reference in a
// record is one of the node's inputs (validation), so a reference is
// compared with the names of the few merged inputs instead of looked up in
// the name index: at 10^6 nodes each lookup missed the cache at its slot
// and at the name's bytes (51,000 records). With `parallel`, each half on a
// thread of its own; the second half's records are then copied on this
// thread, so that they do not stay in the second thread's malloc arena
// (see map_references).
std::vector<std::string> renamed_records(const Graph& g, const std::vector<NodeId>& ids,
                                         const std::vector<NodeId>& kept_as, bool parallel) {
  std::vector<std::string> out(ids.size());
  auto rename_range = [&](size_t from, size_t to) {
    std::vector<std::pair<std::string_view, std::string_view>> merged;
    const RenameRef rename = [&](std::string_view name) -> std::string_view {
      for (const auto& [old_name, new_name] : merged) {
        if (name == old_name) return new_name;
      }
      return {};
    };
    for (size_t k = from; k < to; ++k) {
      merged.clear();
      for (NodeId in : g[ids[k]].inputs) {
        if (kept_as[in] != in) merged.emplace_back(g[in].name, g[kept_as[in]].name);
      }
      out[k] = rename_node_refs(g.record_bytes(ids[k]), rename);
    }
  };
  const size_t half = parallel ? ids.size() / 2 : ids.size();
  run_side_by_side(parallel, [&] { rename_range(half, ids.size()); }, [&] { rename_range(0, half); });
  if (parallel) {
    for (size_t k = half; k < ids.size(); ++k) out[k] = std::string(out[k]);
  }
  return out;
}

// Those records into the overlay, in graph order: record_index[k] receives
// where records[k] went.
template <typename IndexOf>
void add_to_overlay(std::vector<std::string>& records, DerivedGraph& d, const IndexOf& record_index_of) {
  for (size_t k = 0; k < records.size(); ++k) {
    d.overlay->add_owned(std::move(records[k]));
    record_index_of(k) = -static_cast<int>(d.overlay->size());
  }
  records = {};
}

// The derived nodes' references, mapped to the new ids, into one block of
// the derived graph's own (the source's blocks hold the old ids). With
// `parallel`, each half of the nodes on a thread of its own. The block is
// allocated here, on the thread whose graph keeps it: glibc would keep a
// block the second thread allocated in that thread's arena, beside what
// the later stages' second threads allocate there.
template <typename Map>
void map_references(const Map& map, Graph& out, bool parallel) {
  const size_t count = out.nodes.size();
  const size_t half = parallel ? count / 2 : count;
  auto ids_of = [&](size_t from, size_t to) {
    size_t total = 0;
    for (size_t k = from; k < to; ++k) total += out.nodes[k].inputs.size() + out.nodes[k].positional_inputs.size();
    return total;
  };
  const size_t first_half = ids_of(0, half);
  const auto block = std::make_shared_for_overwrite<NodeId[]>(first_half + ids_of(half, count));
  auto map_range = [&](size_t from, size_t to, NodeId* at) {
    auto remap = [&](NodeRefs refs) {
      NodeId* const start = at;
      for (NodeId in : refs) *at++ = map(in);
      return NodeRefs(start, refs.size());
    };
    for (size_t k = from; k < to; ++k) {
      Node& n = out.nodes[k];
      n.inputs = remap(n.inputs);
      n.positional_inputs = remap(n.positional_inputs);
    }
  };
  run_side_by_side(
      parallel, [&] { map_range(half, count, block.get() + first_half); },
      [&] { map_range(0, half, block.get()); });
  out.ref_blocks = {block};
}

// References, users, outputs and static lifetimes of the derived nodes.
void finish_derived(const Graph& g, const Plan& plan, const std::vector<NodeId>& kept_as, DerivedGraph& d,
                    bool parallel) {
  // nodes_reading_merged checked that every reference maps to a kept node.
  const auto map = [&](NodeId ref) { return plan.new_id[kept_as[ref]]; };
  Graph& out = d.graph;
  map_references(map, out, parallel);
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

DerivedGraph derive_graph(const Graph& g, const Flags& keep, const std::vector<NodeId>& kept_as, unsigned threads) {
  const bool parallel = split_in_two(threads, g.size());
  Plan plan;
  DerivedGraph d = begin_derived(g, keep, plan);
  const std::vector<NodeId> rewritten = nodes_reading_merged(g, keep, kept_as, plan);
  std::vector<std::string> records = renamed_records(g, rewritten, kept_as, parallel);
  Graph& out = d.graph;
  out.nodes.reserve(static_cast<size_t>(plan.count));
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!keep[id]) continue;
    out.nodes.push_back(g[id]);  // its references mapped in finish_derived
    if (g[id].input_kind == InputKind::Primal) out.primals.push_back(plan.new_id[id]);
  }
  add_to_overlay(records, d, [&](size_t k) -> int& { return out.nodes[plan.new_id[rewritten[k]]].record_index; });
  finish_derived(g, plan, kept_as, d, parallel);
  return d;
}

DerivedGraph derive_graph_consuming(Graph& g, const Flags& keep, const std::vector<NodeId>& kept_as,
                                    unsigned threads) {
  const bool parallel = split_in_two(threads, g.size());
  Plan plan;
  DerivedGraph d = begin_derived(g, keep, plan);
  // Names and records are read while the nodes are still in place.
  const std::vector<NodeId> rewritten = nodes_reading_merged(g, keep, kept_as, plan);
  std::vector<std::string> records = renamed_records(g, rewritten, kept_as, parallel);
  add_to_overlay(records, d, [&](size_t k) -> int& { return g.nodes[rewritten[k]].record_index; });
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
  finish_derived(g, plan, kept_as, d, parallel);
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
