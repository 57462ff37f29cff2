#include "partition/partition_message.h"

#include <stdexcept>

#include "graph/arena_graph.h"
#include "graph/record_store.h"
#include "node_records.pb.h"

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

std::shared_ptr<proto::Partition> partition_message(const Graph& g, const Classification& c, const Extraction& e,
                                                    const Settings& s) {
  auto p = new_arena_message<proto::Partition>();
  *p = partition_skeleton(g, c, e, s);
  const PartitionLayout l = partition_layout(g, c, e);
  proto::Graph& fw = *p->mutable_forward();
  fw.mutable_nodes()->Reserve(static_cast<int>(l.forward_nodes.size() + 1));
  for (NodeId id : l.forward_nodes) g.record_into(id, *fw.add_nodes());
  *fw.add_nodes() = output_node(g, l.forward_outputs);
  proto::Graph& bw = *p->mutable_backward();
  bw.mutable_nodes()->Reserve(static_cast<int>(l.backward_inputs.size() + l.backward_nodes.size() + 1));
  for (NodeId id : l.backward_inputs) *bw.add_nodes() = placeholder_node(g.record(id));
  for (NodeId id : l.backward_nodes) g.record_into(id, *bw.add_nodes());
  *bw.add_nodes() = output_node(g, l.backward_outputs);
  return p;
}

namespace {

constexpr bool same_number(int a, int b) { return a == b; }
static_assert(same_number(proto::PartitionNodeRecords::kForwardFieldNumber, proto::Partition::kForwardFieldNumber) &&
                  same_number(proto::PartitionNodeRecords::kBackwardFieldNumber, proto::Partition::kBackwardFieldNumber) &&
                  same_number(proto::GraphNodeRecords::kNodesFieldNumber, proto::Graph::kNodesFieldNumber),
              "node_records.proto must number its fields as graph.proto does");

// placeholder_node's record, built from node `id`'s record through
// NodeFields (the same fields, the value's bytes as stored; a test checks
// that NodeFields numbers every field of Node as graph.proto does): decoding the
// whole node, value and args included, was most of the binary write's
// instructions on gpt2_124m. The messages are the caller's, reused.
class PlaceholderWriter {
 public:
  void write(const Graph& g, NodeId id, std::string& out) {
    g.record_bytes(id, bytes_);
    if (!source_.ParseFromString(bytes_)) throw std::logic_error("partition writer: a stored record does not parse");
    placeholder_.Clear();
    placeholder_.set_name(source_.name());
    placeholder_.set_op("placeholder");
    placeholder_.set_target(source_.name());
    if (source_.has_val()) placeholder_.set_val(source_.val());
    placeholder_.set_partitioner_tag(source_.partitioner_tag());
    placeholder_.set_module_path(source_.module_path());
    out.clear();
    placeholder_.SerializeToString(&out);
  }

 private:
  std::string bytes_;
  proto::NodeFields source_, placeholder_;
};

// Binary output in pieces: the skeleton (every field but the nodes), then
// PartitionNodeRecords messages that each hold a batch of forward or
// backward node records as bytes (node_records.proto). Protobuf parses
// concatenated messages as one (repeated fields append, message fields
// merge), so the pieces parse as partition_message's message. The records
// are copied as stored, not decoded and encoded again, which on gpt2_l96
// takes the write from 44 ms to 17 ms on the 2-core VM. The batch's strings
// are reused batch after batch, so the scratch stays in cache, and so is
// the buffer the pieces pass through on their way to `write`.
class ChunkWriter {
 public:
  // The buffer is reserved once: grown piece by piece it moved into fresh
  // memory at each doubling.
  explicit ChunkWriter(const std::function<void(std::string_view)>& write) : write_(write) {
    buffer_.reserve(2 * kFlushBytes);
  }
  // Every output passes through here, the skeleton first.
  void append(const google::protobuf::Message& piece) {
    append_binary(piece, buffer_, "Partition");
    check_message_size(written_ + buffer_.size(), "Partition");
    if (buffer_.size() >= kFlushBytes) flush_buffer();
  }
  // Nodes from here on go to the backward graph (else the forward).
  void start(bool backward) {
    flush();
    chunk_.Clear();
    graph_ = backward ? chunk_.mutable_backward() : chunk_.mutable_forward();
  }
  // Where the next node's record goes.
  std::string& next() {
    if (graph_->nodes_size() == kBatch) flush();
    return *graph_->add_nodes();
  }
  void flush() {
    if (graph_ == nullptr || graph_->nodes_size() == 0) return;
    append(chunk_);
    graph_->mutable_nodes()->Clear();  // keeps the cleared strings for reuse
  }
  // The last batch, and the buffer to `write`.
  void finish() {
    flush();
    flush_buffer();
  }

 private:
  void flush_buffer() {
    if (buffer_.empty()) return;
    write_(buffer_);
    written_ += buffer_.size();
    buffer_.clear();
  }

  // The batch size shapes the output's bytes (each batch is a message of
  // its own): changing it changes the file, not what it parses as.
  static constexpr int kBatch = 128;  // ~20 KB of records
  // Small enough that the buffer stays a few pages (each fresh page cost
  // ~12 us on the 2-core VM); a write() per 32 KiB or so.
  static constexpr size_t kFlushBytes = 32 << 10;
  const std::function<void(std::string_view)>& write_;
  std::string buffer_;
  uint64_t written_ = 0;
  proto::PartitionNodeRecords chunk_;
  proto::GraphNodeRecords* graph_ = nullptr;
};

void write_binary_partition(const Graph& g, const Classification& c, const Extraction& e, const Settings& s,
                            const std::function<void(std::string_view)>& write) {
  const proto::Partition skeleton = partition_skeleton(g, c, e, s);
  const PartitionLayout l = partition_layout(g, c, e);
  ChunkWriter writer(write);
  writer.append(skeleton);
  writer.start(false);
  for (NodeId id : l.forward_nodes) g.record_bytes(id, writer.next());
  encode_record(output_node(g, l.forward_outputs), writer.next());
  writer.start(true);
  PlaceholderWriter placeholders;
  for (NodeId id : l.backward_inputs) placeholders.write(g, id, writer.next());
  for (NodeId id : l.backward_nodes) g.record_bytes(id, writer.next());
  encode_record(output_node(g, l.backward_outputs), writer.next());
  writer.finish();
}

}  // namespace

std::string serialize_partition(const Graph& g, const Classification& c, const Extraction& e, const Settings& s,
                                Format format) {
  std::string out;
  write_partition(g, c, e, s, format, [&out](std::string_view piece) { out.append(piece); });
  return out;
}

void write_partition(const Graph& g, const Classification& c, const Extraction& e, const Settings& s, Format format,
                     const std::function<void(std::string_view)>& write) {
  if (format == Format::Binary) return write_binary_partition(g, c, e, s, write);
  write(serialize_message(*partition_message(g, c, e, s), format));
}

}  // namespace pt
