#include "graph/parallel_parse.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "graph/side_by_side.h"

namespace pt {

namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::internal::WireFormatLite;

constexpr int kRecursionLimit = 64;  // as graph_io.cpp's parse_message
constexpr uint32_t kNodesTag = (2u << 3) | 2u;  // Graph.nodes, length-delimited

bool parse_record(std::string_view r, proto::Node* node) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(r.data()), static_cast<int>(r.size()));
  in.SetRecursionLimit(kRecursionLimit - 1);  // one level below the graph
  return node->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

bool parse_records(const std::vector<std::string_view>& records, size_t from, size_t to, proto::Graph* graph) {
  for (size_t i = from; i < to; ++i) {
    if (!parse_record(records[i], graph->mutable_nodes(static_cast<int>(i)))) return false;
  }
  return true;
}

bool parse_range(const uint8_t* data, int size, proto::Graph* into) {
  CodedInputStream in(data, size);
  in.SetRecursionLimit(kRecursionLimit);
  return into->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

// Reads one top-level field's header at `in` and skips the field; the tag
// (0 at the end or on a malformed header).
uint32_t skip_field(CodedInputStream& in) {
  const uint32_t tag = in.ReadTag();
  if (tag == 0) return 0;
  if (tag == kNodesTag) {
    uint32_t length = 0;
    if (!in.ReadVarint32(&length) || !in.Skip(static_cast<int>(std::min<uint32_t>(length, INT32_MAX)))) return 0;
    return tag;
  }
  return WireFormatLite::SkipField(&in, tag) ? tag : 0;
}

// A Graph on `graph`'s arena (or the heap, with the owner).
struct ArenaTemp {
  proto::Graph* graph;
  std::unique_ptr<proto::Graph> owned;
  explicit ArenaTemp(google::protobuf::Arena* arena)
      : graph(google::protobuf::Arena::CreateMessage<proto::Graph>(arena)), owned(arena ? nullptr : graph) {}
};

// The usual layout: the other fields, one run of node records, the other
// fields. The run is split at record boundaries into `chunks` byte ranges,
// each parsed whole (as a Graph holding only nodes) on its own thread into
// its own Graph on the same arena; their nodes then move into `graph` by
// pointer, after the other fields. Nothing is scanned twice and no node is
// created ahead (the record-by-record parse below spent a fifth of a
// 10^6-node parse creating the nodes on one thread and scanning every
// record's header). nullopt: another layout (a field between node records).
std::optional<bool> parse_node_run(std::string_view bytes, proto::Graph* graph, size_t chunks) {
  const auto* begin = reinterpret_cast<const uint8_t*>(bytes.data());
  const int size = static_cast<int>(bytes.size());
  CodedInputStream in(begin, size);
  std::string rest;
  int run_begin = -1;
  while (run_begin < 0) {  // the fields before the first node
    const int start = in.CurrentPosition();
    const uint32_t tag = skip_field(in);
    if (tag == 0) return std::nullopt;  // no node, or malformed: the other parse decides
    if (tag == kNodesTag) run_begin = start;
    else rest.append(bytes.substr(static_cast<size_t>(start), static_cast<size_t>(in.CurrentPosition() - start)));
  }
  // Range starts: the first record at or past each k/chunks of the bytes left.
  std::vector<int> starts{run_begin};
  while (starts.size() < chunks) {
    const int at = in.CurrentPosition();
    if (int64_t{at - run_begin} * static_cast<int64_t>(chunks) >=
        int64_t{size - run_begin} * static_cast<int64_t>(starts.size())) {
      starts.push_back(at);
      continue;
    }
    if (skip_field(in) != kNodesTag) return std::nullopt;  // the end, a field between nodes, or malformed
  }
  // Each range but the last holds node records only (scanned above). The
  // last one's thread finds where its records end and checks that only
  // other fields follow.
  const size_t n = starts.size();
  std::vector<ArenaTemp> parts;
  parts.reserve(n);
  for (size_t k = 0; k < n; ++k) parts.emplace_back(graph->GetArena());
  std::vector<char> ok(n, 0);
  int run_end = size;
  bool other_layout = false;
  auto parse_part = [&](size_t k) {
    if (k + 1 < n) {
      ok[k] = parse_range(begin + starts[k], starts[k + 1] - starts[k], parts[k].graph);
      return;
    }
    CodedInputStream tail(begin, size);
    if (!tail.Skip(starts[k])) return;
    for (int start = tail.CurrentPosition();; start = tail.CurrentPosition()) {
      const uint32_t tag = skip_field(tail);
      if (tag == 0) {
        if (start != size || tail.CurrentPosition() != size) return;  // malformed: ok stays false
        break;
      }
      if (tag != kNodesTag && run_end == size) run_end = start;
      if (tag == kNodesTag && run_end != size) {
        other_layout = true;  // a node after other fields
        return;
      }
    }
    ok[k] = parse_range(begin + starts[k], run_end - starts[k], parts[k].graph);
  };
  run_parts(n, parse_part);
  if (other_layout) return std::nullopt;
  if (!std::all_of(ok.begin(), ok.end(), [](char v) { return v != 0; })) return false;
  rest.append(bytes.substr(static_cast<size_t>(run_end)));
  if (!parse_range(reinterpret_cast<const uint8_t*>(rest.data()), static_cast<int>(rest.size()), graph)) return false;
  auto* nodes = graph->mutable_nodes();
  int total = 0;
  for (const auto& p : parts) total += p.graph->nodes_size();
  nodes->Reserve(total);
  std::vector<proto::Node*> moved;
  for (auto& p : parts) {
    auto* from = p.graph->mutable_nodes();
    moved.resize(static_cast<size_t>(from->size()));
    from->UnsafeArenaExtractSubrange(0, from->size(), moved.data());
    for (proto::Node* node : moved) nodes->UnsafeArenaAddAllocated(node);
  }
  return true;
}

}  // namespace

bool split_graph_records(std::string_view bytes, std::vector<std::string_view>& nodes, std::string& rest) {
  const auto* begin = reinterpret_cast<const uint8_t*>(bytes.data());
  const int size = static_cast<int>(bytes.size());
  CodedInputStream in(begin, size);
  while (true) {
    const int start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return in.CurrentPosition() == size && start == size;
    if (tag == kNodesTag) {
      uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return false;
      const int at = in.CurrentPosition();
      if (length > static_cast<uint32_t>(size - at)) return false;
      nodes.push_back(bytes.substr(static_cast<size_t>(at), length));
      if (!in.Skip(static_cast<int>(length))) return false;
      continue;
    }
    if (!WireFormatLite::SkipField(&in, tag)) return false;
    rest.append(bytes.substr(static_cast<size_t>(start), static_cast<size_t>(in.CurrentPosition() - start)));
  }
}

bool parse_graph_binary(std::string_view data, proto::Graph* graph, unsigned threads, size_t min_bytes_per_thread) {
  size_t chunks = std::min<size_t>(threads, data.size() / std::max<size_t>(1, min_bytes_per_thread));
  if (chunks <= 1) {  // protobuf's own parse of the whole message, no scan
    CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()), static_cast<int>(data.size()));
    in.SetRecursionLimit(kRecursionLimit);
    return graph->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
  }
  if (const std::optional<bool> parsed = parse_node_run(data, graph, chunks)) return *parsed;
  // Another layout: record by record.
  std::vector<std::string_view> records;
  std::string rest;
  if (!split_graph_records(data, records, rest)) return false;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(rest.data()), static_cast<int>(rest.size()));
  in.SetRecursionLimit(kRecursionLimit);
  if (!graph->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) return false;
  chunks = std::max<size_t>(1, std::min(chunks, records.size()));
  auto* nodes = graph->mutable_nodes();
  nodes->Reserve(static_cast<int>(records.size()));
  for (size_t i = 0; i < records.size(); ++i) nodes->Add();

  // Chunks of about equal bytes, the last one parsed on this thread.
  uint64_t total = 0;
  for (const auto& r : records) total += r.size();
  std::vector<size_t> bounds{0};
  uint64_t seen = 0;
  for (size_t i = 0; i < records.size() && bounds.size() < chunks; ++i) {
    seen += records[i].size();
    if (seen * chunks >= total * bounds.size()) bounds.push_back(i + 1);
  }
  bounds.push_back(records.size());
  std::vector<char> ok(bounds.size() - 1, 0);
  run_parts(ok.size(), [&](size_t c) { ok[c] = parse_records(records, bounds[c], bounds[c + 1], graph); });
  return std::all_of(ok.begin(), ok.end(), [](char v) { return v != 0; });
}

}  // namespace pt
