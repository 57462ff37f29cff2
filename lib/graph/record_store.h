// The nodes of a loaded graph as their serialized protobuf records: one
// contiguous buffer of bytes plus offsets, and each node's name beside it.
// A parsed message tree cost ~1,070 bytes a node on its arena (a std::string
// and a cleanup entry per text field, the Node, TensorMeta and Arg
// objects), a fresh page per four nodes; the serialized record is ~170
// bytes. A record is decoded (protobuf's generated code) where a stage asks
// for it: Graph::record. The binary loader stores each record's bytes as
// read; validation parses each once (parse) to check it and names it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graph/schema.h"

namespace pt {

// Nesting depth the binary and text parsers accept (validation refuses
// args and values nested deeper than kMaxNesting well below it); a node's
// record, one level below its graph, one less.
inline constexpr int kParseRecursionLimit = 64;
inline constexpr int kRecordRecursionLimit = kParseRecursionLimit - 1;

class RecordStore {
 public:
  // Room for `count` records of `bytes` in all, without growing.
  void reserve(size_t count, size_t bytes);
  // Appends a record of `size` bytes; returns where its bytes go (valid
  // until the next append), for a reader to fill in place.
  char* append(size_t size);
  // Appends `node` serialized (encode_record): a Node, or a view of one
  // with the same field numbers (node_records.proto).
  void append(const google::protobuf::Message& node);
  // Names the first record not yet named, once every record is appended
  // (validation, which parses each record once, in order).
  void add_name(std::string_view name);
  int named() const { return static_cast<int>(name_start_.size()) - 1; }

  int size() const { return static_cast<int>(start_.size()) - 1; }
  std::string_view bytes(int k) const {
    return {data_.data() + start_[static_cast<size_t>(k)], start_[static_cast<size_t>(k) + 1] - start_[static_cast<size_t>(k)]};
  }
  // Record k's name; stable while the store lives (NameIndex keys and
  // Node::name view it).
  std::string_view name(int k) const {
    const size_t i = static_cast<size_t>(k);
    return {names_.data() + name_start_[i], name_start_[i + 1] - name_start_[i]};
  }
  // Record k parsed into `out` (cleared first) as the whole graph's parser
  // would (recursion limit one level below its own); false where its bytes
  // are not a valid node.
  bool parse(int k, proto::Node& out) const;
  // Record k decoded into `out` (cleared first), once validation parsed it:
  // a caller decoding many records reuses one message and its allocations.
  void decode(int k, proto::Node& out) const;
  proto::Node decode(int k) const;
  size_t byte_size() const { return data_.size(); }

 private:
  std::string data_;                     // the records, back to back
  // 32-bit offsets, half the memory of size_t ones: a graph file is at
  // most 2 GiB (kMaxInputBytes), and append() refuses to pass 4 GiB.
  std::vector<uint32_t> start_{0};       // size() + 1 offsets into data_
  // Names back to back, in room reserved for all of them at the first
  // add_name: a name is part of its record, so they take at most
  // byte_size() bytes and name views stay valid while names are added.
  std::string names_;
  std::vector<uint32_t> name_start_{0};
};

// `node` serialized deterministically (map entries sorted by key) into
// `out`, replacing its contents: the same node always gives the same bytes.
void encode_record(const google::protobuf::Message& node, std::string& out);

// A graph message split for Graph: its fields other than nodes (`header`)
// and its nodes as records.
struct SplitGraph {
  std::shared_ptr<proto::Graph> header;
  std::shared_ptr<RecordStore> records;
};

// `whole` split: its non-node fields copied, each node serialized with its
// name (text and JSON inputs, and messages built in memory).
SplitGraph split_graph(const proto::Graph& whole);

}  // namespace pt
