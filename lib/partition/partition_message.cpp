#include "partition/partition_message.h"

#include "graph/arena_graph.h"

namespace pt {

namespace {

void copy_header(const Graph& g, const char* which, proto::Graph& out) {
  out.set_name(g.header->name() + "." + which);
  for (const auto& [k, v] : g.header->metadata()) (*out.mutable_metadata())[k] = v;
  (*out.mutable_metadata())["partition"] = which;
}

}  // namespace

proto::Node placeholder_node(const proto::Node& original) {
  proto::Node p;
  p.set_name(original.name());
  p.set_op("placeholder");
  p.set_target(original.name());
  if (original.has_val()) *p.mutable_val() = original.val();
  if (!original.partitioner_tag().empty()) p.set_partitioner_tag(original.partitioner_tag());
  if (!original.module_path().empty()) p.set_module_path(original.module_path());
  return p;
}

proto::Node output_node(const Graph& g, const std::vector<NodeId>& values) {
  proto::Node node;
  node.set_name("output");
  node.set_op("output");
  node.set_target("output");
  auto* list = node.add_args()->mutable_list();
  for (NodeId id : values) {
    if (id == kNoNode) list->add_items()->set_none(true);
    else list->add_items()->set_node(std::string(g[id].name));
  }
  return node;
}

PartitionLayout partition_layout(const Graph& g, const Classification& c, const Extraction& e) {
  PartitionLayout l;
  // Forward: its inputs are the joint graph's primals and forward seeds,
  // already placeholders, in graph order.
  for (NodeId id = 0; id < g.size(); ++id) {
    if (e.forward.keep[id] && g[id].op != OpKind::Output) l.forward_nodes.push_back(id);
  }
  l.forward_outputs = c.fwd_outputs;
  const auto saved = e.fw_saved_outputs();
  l.forward_outputs.insert(l.forward_outputs.end(), saved.begin(), saved.end());
  // Backward: placeholders in input order, then the kept nodes in graph order.
  l.backward_inputs = e.bw_inputs();
  for (NodeId id = 0; id < g.size(); ++id) {
    if (e.backward.keep[id] && !e.backward.is_input[id] && g[id].op != OpKind::Output) {
      l.backward_nodes.push_back(id);
    }
  }
  l.backward_outputs = c.bwd_outputs;
  return l;
}

proto::Partition partition_skeleton(const Graph& g, const Classification& c, const Extraction& e,
                                    const Settings& s) {
  proto::Partition p;
  p.set_source(g.header->name());
  proto::Graph& fw = *p.mutable_forward();
  copy_header(g, "forward", fw);
  fw.set_num_fwd_outputs(static_cast<int64_t>(c.fwd_outputs.size()));
  *fw.mutable_static_lifetime_input_indices() = g.header->static_lifetime_input_indices();
  proto::Graph& bw = *p.mutable_backward();
  copy_header(g, "backward", bw);
  bw.set_num_fwd_outputs(0);
  for (NodeId id : e.saved_values) p.add_saved_values(std::string(g[id].name));
  for (NodeId id : e.saved_sym_nodes) p.add_saved_sym_nodes(std::string(g[id].name));
  for (NodeId id : e.recomputed) p.add_recomputed(std::string(g[id].name));
  for (const auto& [k, v] : s.to_map()) (*p.mutable_settings())[k] = v;
  return p;
}

namespace {

// Adds `node` to `graph` without copying it; PartitionView::Return takes it
// back. The message only reads it (serializing writes its cached size).
void borrow(proto::Graph& graph, const proto::Node& node) {
  graph.mutable_nodes()->UnsafeArenaAddAllocated(const_cast<proto::Node*>(&node));
}

void give_back(proto::Graph& graph) {
  graph.mutable_nodes()->UnsafeArenaExtractSubrange(0, graph.nodes_size(), nullptr);
}

}  // namespace

PartitionView::PartitionView(const Graph& g, const Classification& c, const Extraction& e, const Settings& s)
    : message_(partition_skeleton(g, c, e, s)) {
  const PartitionLayout l = partition_layout(g, c, e);
  proto::Graph& fw = *message_.mutable_forward();
  fw.mutable_nodes()->Reserve(static_cast<int>(l.forward_nodes.size() + 1));
  for (NodeId id : l.forward_nodes) borrow(fw, g.record(id));
  borrow(fw, made_.emplace_back(output_node(g, l.forward_outputs)));
  proto::Graph& bw = *message_.mutable_backward();
  bw.mutable_nodes()->Reserve(static_cast<int>(l.backward_inputs.size() + l.backward_nodes.size() + 1));
  for (NodeId id : l.backward_inputs) borrow(bw, made_.emplace_back(placeholder_node(g.record(id))));
  for (NodeId id : l.backward_nodes) borrow(bw, g.record(id));
  borrow(bw, made_.emplace_back(output_node(g, l.backward_outputs)));
}

PartitionView::Return::~Return() {
  give_back(*message->mutable_forward());
  give_back(*message->mutable_backward());
}

std::shared_ptr<proto::Partition> partition_message(const Graph& g, const Classification& c, const Extraction& e,
                                                    const Settings& s) {
  auto p = new_arena_message<proto::Partition>();
  *p = PartitionView(g, c, e, s).message();
  return p;
}

std::string serialize_partition(const Graph& g, const Classification& c, const Extraction& e, const Settings& s,
                                Format format) {
  return serialize_message(PartitionView(g, c, e, s).message(), format);
}

}  // namespace pt
