#include "graph/parallel_parse.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

namespace pt {

namespace {

using google::protobuf::io::CodedInputStream;
using google::protobuf::internal::WireFormatLite;

constexpr int kRecursionLimit = 64;  // as graph_io.cpp's parse_message
constexpr uint32_t kNodesTag = (2u << 3) | 2u;  // Graph.nodes, length-delimited

struct Record {
  const uint8_t* data;
  int size;
};

// The node records of a serialized Graph, and the bytes of its other fields
// in their order. False when the top level is malformed.
bool split_top_level(std::string_view bytes, std::vector<Record>& nodes, std::string& rest) {
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
      nodes.push_back({begin + at, static_cast<int>(length)});
      if (!in.Skip(static_cast<int>(length))) return false;
      continue;
    }
    if (!WireFormatLite::SkipField(&in, tag)) return false;
    rest.append(bytes.substr(static_cast<size_t>(start), static_cast<size_t>(in.CurrentPosition() - start)));
  }
}

bool parse_record(const Record& r, proto::Node* node) {
  CodedInputStream in(r.data, r.size);
  in.SetRecursionLimit(kRecursionLimit - 1);  // one level below the graph
  return node->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

bool parse_records(const std::vector<Record>& records, size_t from, size_t to, proto::Graph* graph) {
  for (size_t i = from; i < to; ++i) {
    if (!parse_record(records[i], graph->mutable_nodes(static_cast<int>(i)))) return false;
  }
  return true;
}

}  // namespace

bool parse_graph_binary(std::string_view data, proto::Graph* graph, unsigned threads, size_t min_bytes_per_thread) {
  size_t chunks = std::min<size_t>(threads, data.size() / std::max<size_t>(1, min_bytes_per_thread));
  if (chunks <= 1) {  // protobuf's own parse of the whole message, no scan
    CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()), static_cast<int>(data.size()));
    in.SetRecursionLimit(kRecursionLimit);
    return graph->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
  }
  std::vector<Record> records;
  std::string rest;
  if (!split_top_level(data, records, rest)) return false;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(rest.data()), static_cast<int>(rest.size()));
  in.SetRecursionLimit(kRecursionLimit);
  if (!graph->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) return false;
  chunks = std::max<size_t>(1, std::min(chunks, records.size()));
  auto* nodes = graph->mutable_nodes();
  nodes->Reserve(static_cast<int>(records.size()));
  for (size_t i = 0; i < records.size(); ++i) nodes->Add();

  // Chunks of about equal bytes, the last one parsed on this thread.
  uint64_t total = 0;
  for (const auto& r : records) total += static_cast<uint64_t>(r.size);
  std::vector<size_t> bounds{0};
  uint64_t seen = 0;
  for (size_t i = 0; i < records.size() && bounds.size() < chunks; ++i) {
    seen += static_cast<uint64_t>(records[i].size);
    if (seen * chunks >= total * bounds.size()) bounds.push_back(i + 1);
  }
  bounds.push_back(records.size());
  std::vector<char> ok(bounds.size() - 1, 0);
  std::vector<std::jthread> workers;  // joined even when this thread's chunk throws (bad_alloc)
  for (size_t c = 0; c + 2 < bounds.size(); ++c) {
    auto job = [&, c] { ok[c] = parse_records(records, bounds[c], bounds[c + 1], graph); };
    try {
      workers.emplace_back(job);
    } catch (const std::system_error&) {
      job();  // no thread to be had (a container's pids limit): this chunk here
    }
  }
  ok.back() = parse_records(records, bounds[bounds.size() - 2], bounds.back(), graph);
  for (auto& w : workers) w.join();
  return std::all_of(ok.begin(), ok.end(), [](char v) { return v != 0; });
}

}  // namespace pt
