#include "partition/partition_bytes.h"

#include <ostream>
#include <stdexcept>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include "graph/graph_io.h"
#include "partition/partition_message.h"

namespace pt {

namespace {

using google::protobuf::io::CodedOutputStream;
using google::protobuf::internal::WireFormatLite;

// Field 2, length-delimited: Partition.forward and Graph.nodes alike.
constexpr uint32_t kField2Tag = (2 << 3) | 2;
// Field 3, length-delimited: Partition.backward.
constexpr uint32_t kField3Tag = (3 << 3) | 2;

// `whole` serialized as `head` (its fields before the one left out) then the
// rest: returns the rest. Deterministic serialization writes fields in
// number order, so the bytes of the message holding only the fields before
// the gap are a prefix of the whole's.
std::string after_prefix(const std::string& whole, const std::string& head) {
  if (whole.compare(0, head.size(), head) != 0) {
    throw std::logic_error("partition_bytes: serialization does not start with the leading fields");
  }
  return whole.substr(head.size());
}

// The backward's input placeholders are written from their original nodes,
// field by field, as placeholder_node() would build them (name, op, target,
// val, partitioner_tag, module_path; fields in number order, empty strings
// left out as proto3 does): building them as messages held ~0.6 KB each, 58
// MB for the 10^6-node graph's 101,701 saved values, freed just before the
// report, which then grew the peak by as much (issue 7's 2 GB). The tests
// compare these bytes with partition_message()'s serialization.
constexpr const char* kPlaceholderOp = "placeholder";

// The size of a length-delimited field of `payload` with a one-byte tag.
size_t field_size(std::string_view payload) { return 1 + CodedOutputStream::VarintSize64(payload.size()) + payload.size(); }

void write_field(CodedOutputStream& out, int number, std::string_view payload) {
  out.WriteTag(WireFormatLite::MakeTag(number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  out.WriteVarint64(payload.size());
  out.WriteRaw(payload.data(), static_cast<int>(payload.size()));
}

// The val is copied as serialized: a record's parts are canonical (node_records.h).
size_t placeholder_size(const NodeFields& o) {
  size_t size = field_size(kPlaceholderOp);
  if (!o.name().empty()) size += 2 * field_size(o.name());  // name and target
  if (o.has_val()) size += field_size(o.val_bytes());
  if (!o.partitioner_tag().empty()) size += field_size(o.partitioner_tag());
  if (!o.module_path().empty()) size += field_size(o.module_path());
  return size;
}

void write_placeholder(CodedOutputStream& out, const NodeFields& o) {
  if (!o.name().empty()) write_field(out, proto::Node::kNameFieldNumber, o.name());
  write_field(out, proto::Node::kOpFieldNumber, kPlaceholderOp);
  if (!o.name().empty()) write_field(out, proto::Node::kTargetFieldNumber, o.name());
  if (o.has_val()) write_field(out, proto::Node::kValFieldNumber, o.val_bytes());
  if (!o.partitioner_tag().empty()) write_field(out, proto::Node::kPartitionerTagFieldNumber, o.partitioner_tag());
  if (!o.module_path().empty()) write_field(out, proto::Node::kModulePathFieldNumber, o.module_path());
}

// A node of a written graph: one of the joint graph's (its record, copied
// as it is: records are protobuf's deterministic serialization), a
// placeholder standing for one, or a node built here (the output node).
struct FrameNode {
  std::string_view record;
  bool placeholder = false;
  const proto::Node* built = nullptr;
};

// A graph's bytes around its nodes: field 1 (name) before, fields 3-5 after.
struct GraphFrame {
  std::string head, tail;
  std::vector<FrameNode> nodes;
  std::vector<size_t> sizes;
  size_t size = 0;  // of the graph's serialization
};

GraphFrame frame(const proto::Graph& skeleton, std::vector<FrameNode> nodes) {
  GraphFrame f;
  proto::Graph name_only;
  name_only.set_name(skeleton.name());
  f.head = serialize_message(name_only, Format::Binary);
  f.tail = after_prefix(serialize_message(skeleton, Format::Binary), f.head);
  f.nodes = std::move(nodes);
  f.sizes.reserve(f.nodes.size());
  f.size = f.head.size() + f.tail.size();
  for (const FrameNode& n : f.nodes) {
    const size_t size = n.built ? n.built->ByteSizeLong() : n.placeholder ? placeholder_size(NodeFields(n.record))
                                                                         : n.record.size();
    f.sizes.push_back(size);
    f.size += 1 + CodedOutputStream::VarintSize64(size) + size;
  }
  return f;
}

void write_graph(CodedOutputStream& out, uint32_t tag, const GraphFrame& f) {
  out.WriteTag(tag);
  out.WriteVarint64(f.size);
  out.WriteRaw(f.head.data(), static_cast<int>(f.head.size()));
  for (size_t i = 0; i < f.nodes.size(); ++i) {
    out.WriteTag(kField2Tag);
    out.WriteVarint64(f.sizes[i]);
    const FrameNode& n = f.nodes[i];
    if (n.built) n.built->SerializeWithCachedSizes(&out);
    else if (n.placeholder) write_placeholder(out, NodeFields(n.record));
    else out.WriteRaw(n.record.data(), static_cast<int>(n.record.size()));
  }
  out.WriteRaw(f.tail.data(), static_cast<int>(f.tail.size()));
}

}  // namespace

namespace {

// Writes the partition's bytes to `stream`; returns how many (0 when the
// stream failed).
uint64_t write_partition(google::protobuf::io::ZeroCopyOutputStream& stream, const Graph& g, const Classification& c,
                         const Extraction& e, const Settings& s) {
  proto::Partition skeleton = partition_skeleton(g, c, e, s);
  const PartitionLayout l = partition_layout(g, c, e);

  const proto::Node fw_output = output_node(g, l.forward_outputs);
  std::vector<FrameNode> fw_nodes;
  fw_nodes.reserve(l.forward_nodes.size() + 1);
  for (NodeId id : l.forward_nodes) fw_nodes.push_back({g.record_bytes(id), false});
  fw_nodes.push_back({{}, false, &fw_output});

  const proto::Node bw_output = output_node(g, l.backward_outputs);
  std::vector<FrameNode> bw_nodes;
  bw_nodes.reserve(l.backward_inputs.size() + l.backward_nodes.size() + 1);
  for (NodeId id : l.backward_inputs) bw_nodes.push_back({g.record_bytes(id), true});
  for (NodeId id : l.backward_nodes) bw_nodes.push_back({g.record_bytes(id), false});
  bw_nodes.push_back({{}, false, &bw_output});

  const GraphFrame fw = frame(skeleton.forward(), std::move(fw_nodes));
  const GraphFrame bw = frame(skeleton.backward(), std::move(bw_nodes));

  // Partition: field 1 (source), the two graphs (fields 2, 3), fields 4-7.
  proto::Partition source_only;
  source_only.set_source(skeleton.source());
  const std::string head = serialize_message(source_only, Format::Binary);
  skeleton.clear_forward();
  skeleton.clear_backward();
  const std::string tail = after_prefix(serialize_message(skeleton, Format::Binary), head);

  const uint64_t total = head.size() + tail.size() + 1 + CodedOutputStream::VarintSize64(fw.size) + fw.size + 1 +
                         CodedOutputStream::VarintSize64(bw.size) + bw.size;
  check_message_size(total, "Partition");
  const int64_t start = stream.ByteCount();
  {
    CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    coded.WriteRaw(head.data(), static_cast<int>(head.size()));
    write_graph(coded, kField2Tag, fw);
    write_graph(coded, kField3Tag, bw);
    coded.WriteRaw(tail.data(), static_cast<int>(tail.size()));
    coded.Trim();
    // A failed stream (a full disk) is the caller's to report: OutputBatch
    // names the file.
    if (coded.HadError()) return 0;
  }
  const uint64_t wrote = static_cast<uint64_t>(stream.ByteCount() - start);
  if (wrote != total) {
    throw std::logic_error("partition_bytes: wrote " + std::to_string(wrote) + " bytes, sized " +
                           std::to_string(total));
  }
  return total;
}

}  // namespace

std::string partition_bytes(const Graph& g, const Classification& c, const Extraction& e, const Settings& s) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    write_partition(stream, g, c, e, s);
  }
  return out;
}

void write_partition_bytes(std::ostream& out, const Graph& g, const Classification& c, const Extraction& e,
                           const Settings& s) {
  google::protobuf::io::OstreamOutputStream stream(&out, 1 << 16);
  write_partition(stream, g, c, e, s);
}

}  // namespace pt
