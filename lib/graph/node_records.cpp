#include "graph/node_records.h"

#include <algorithm>
#include <stdexcept>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/common.h>

#include "graph/errors.h"
#include "graph/parallel_parse.h"
#include "graph/printable.h"
#include "graph/side_by_side.h"
#include "graph/wire_canonical.h"

namespace pt {

namespace {

using google::protobuf::io::CodedInputStream;

constexpr int kRecursionLimit = 64;             // as graph_io.cpp's parse_message

// A record protobuf parses, re-serialized; false when protobuf rejects it.
bool reencode(std::string_view record, std::string& out) {
  proto::Node node;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(record.data()), static_cast<int>(record.size()));
  in.SetRecursionLimit(kRecursionLimit - 1);  // one level below the graph
  if (!node.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) return false;
  out = serialize_node(node);
  return true;
}

}  // namespace

std::string serialize_node(const proto::Node& node) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    node.SerializeToCodedStream(&coded);
  }
  return out;
}

proto::Node node_message(std::string_view record) {
  proto::Node node;
  if (!node.ParseFromArray(record.data(), static_cast<int>(record.size()))) {
    throw std::logic_error("node_records: a stored record does not parse");
  }
  return node;
}


bool parse_graph_records(std::string_view data, std::shared_ptr<const void> owner, unsigned threads,
                         GraphRecords& out, size_t min_bytes_per_thread) {
  auto nodes = std::make_shared<NodeRecords>();
  std::vector<std::string_view> records;
  std::string rest;
  if (!split_graph_records(data, records, rest)) return false;
  auto header = std::make_shared<proto::Graph>();
  CodedInputStream in(reinterpret_cast<const uint8_t*>(rest.data()), static_cast<int>(rest.size()));
  in.SetRecursionLimit(kRecursionLimit);
  if (!header->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) return false;

  // Each record checked (and the rare non-canonical one re-encoded) in
  // ranges of about equal bytes, one per thread.
  const size_t chunks = std::clamp<size_t>(data.size() / std::max<size_t>(1, min_bytes_per_thread), 1,
                                           std::max<size_t>(1, std::min<size_t>(thread_count(threads), records.size())));
  std::vector<size_t> bounds{0};
  for (size_t i = 0, seen = 0; i < records.size() && bounds.size() < chunks; ++i) {
    seen += records[i].size();
    if (seen * chunks >= data.size() * bounds.size()) bounds.push_back(i + 1);
  }
  bounds.push_back(records.size());
  // Re-encoded records per range: (index, bytes).
  std::vector<std::vector<std::pair<size_t, std::string>>> fixed(bounds.size() - 1);
  std::vector<char> ok(bounds.size() - 1, 0);
  run_parts(ok.size(), [&](size_t c) {
    for (size_t i = bounds[c]; i < bounds[c + 1]; ++i) {
      if (wire::is_canonical_node(records[i])) continue;
      std::string bytes;
      if (!reencode(records[i], bytes)) return;
      fixed[c].emplace_back(i, std::move(bytes));
    }
    ok[c] = 1;
  });
  if (!std::all_of(ok.begin(), ok.end(), [](char v) { return v != 0; })) return false;
  nodes->reserve(records.size());
  for (std::string_view r : records) nodes->add_view(r);
  for (auto& range : fixed) {
    for (auto& [i, bytes] : range) nodes->set_owned(i, std::move(bytes));
  }
  nodes->keep_alive(std::move(owner));
  out.header = std::move(header);
  out.nodes = std::move(nodes);
  return true;
}

namespace {

// The path of the first string in `m` (depth first, in field order) that is
// not UTF-8 as protobuf's binary parser checks it ("" when none):
// "args[0].list.items[1].str", "kwargs.dim.str", "op_tags[2]".
std::string invalid_utf8_field(const google::protobuf::Message& m) {
  using google::protobuf::FieldDescriptor;
  const auto* reflection = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    const auto name = [&](int k) {
      return f->is_repeated() && !f->is_map() ? f->name() + "[" + std::to_string(k) + "]" : f->name();
    };
    const int count = f->is_repeated() ? reflection->FieldSize(m, f) : 1;
    for (int k = 0; k < count; ++k) {
      if (f->type() == FieldDescriptor::TYPE_STRING) {
        const std::string text = f->is_repeated() ? reflection->GetRepeatedString(m, f, k) : reflection->GetString(m, f);
        if (!google::protobuf::internal::IsStructurallyValidUTF8(text)) return name(k);
      } else if (f->type() == FieldDescriptor::TYPE_MESSAGE) {
        const auto& sub = f->is_repeated() ? reflection->GetRepeatedMessage(m, f, k) : reflection->GetMessage(m, f);
        if (f->is_map()) {
          // An entry: its key, or its value's path under the key.
          const auto* entry = sub.GetDescriptor();
          const std::string key = sub.GetReflection()->GetString(sub, entry->field(0));
          if (!google::protobuf::internal::IsStructurallyValidUTF8(key)) return f->name() + " (a key)";
          const std::string inner = invalid_utf8_field(sub.GetReflection()->GetMessage(sub, entry->field(1)));
          if (!inner.empty()) return f->name() + "." + printable(key) + "." + inner;
          continue;
        }
        const std::string inner = invalid_utf8_field(sub);
        if (!inner.empty()) return name(k) + "." + inner;
      }
    }
  }
  return "";
}

}  // namespace

GraphRecords records_of(const proto::Graph& graph, const std::string& source) {
  auto header = std::make_shared<proto::Graph>();
  header->set_name(graph.name());
  header->set_num_fwd_outputs(graph.num_fwd_outputs());
  *header->mutable_static_lifetime_input_indices() = graph.static_lifetime_input_indices();
  *header->mutable_metadata() = graph.metadata();
  auto nodes = std::make_shared<NodeRecords>();
  nodes->reserve(static_cast<size_t>(graph.nodes_size()));
  for (const auto& n : graph.nodes()) {
    std::string record = serialize_node(n);
    // Text and JSON parsers let through strings that are not UTF-8 (a raw
    // 0xff in a .pbtxt string), which binary protobuf, and so a record,
    // cannot hold: refused as a binary file with them is (found by
    // fuzz_pbtxt: the record failed to parse back when a text or JSON
    // partition was written). ASCII records skip the walk.
    if (!wire::is_canonical_node(record)) {
      const std::string field = invalid_utf8_field(n);
      if (!field.empty()) {
        throw InputError(source + ": node '" + printable(n.name()) + "': " + field +
                         " is not valid UTF-8 (protobuf strings must be)");
      }
    }
    nodes->add_owned(std::move(record));
  }
  return {std::move(header), std::move(nodes)};
}

}  // namespace pt
