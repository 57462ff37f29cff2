// A graph as its nodes' serialized records plus a header message holding
// every other field of the Graph (name, num_fwd_outputs,
// static_lifetime_input_indices, metadata; no nodes). A binary input keeps
// its file's bytes and views each node's record in them, when the record is
// canonical (wire_canonical.h); other records are re-serialized by protobuf
// into the store. Nodes are read through NodeView (node_view.h).
//
// Why: protobuf messages cost 1,077 bytes and ~7,000 instructions per node
// to build (issue 7), more than everything else validation does.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graph/node_view.h"
#include "graph/schema.h"

namespace pt {

class NodeRecords {
 public:
  NodeRecords() = default;
  NodeRecords(const NodeRecords&) = delete;
  NodeRecords& operator=(const NodeRecords&) = delete;

  size_t size() const { return records_.size(); }
  std::string_view bytes(size_t k) const { return records_[k]; }
  NodeView view(size_t k) const { return NodeView(records_[k]); }
  NodeFields fields(size_t k) const { return NodeFields(records_[k]); }

  // Appends a record viewing bytes the store keeps alive (keep_alive).
  void add_view(std::string_view record) { records_.push_back(record); }
  // Appends a record the store owns.
  void add_owned(std::string record) {
    owned_.push_back(std::move(record));
    records_.push_back(owned_.back());
  }
  void keep_alive(std::shared_ptr<const void> owner) { owners_.push_back(std::move(owner)); }
  void reserve(size_t n) { records_.reserve(n); }
  // Replaces record k with one the store owns (the old bytes stay until
  // the store goes: views of them may still be held).
  void set_owned(size_t k, std::string record) {
    owned_.push_back(std::move(record));
    records_[k] = owned_.back();
  }

 private:
  std::vector<std::string_view> records_;
  std::deque<std::string> owned_;  // a deque: records view its strings, which never move
  std::vector<std::shared_ptr<const void>> owners_;
};

// A node as protobuf's deterministic serialization writes it.
std::string serialize_node(const proto::Node& node);
// The message a record holds (for writers that build messages).
proto::Node node_message(std::string_view record);

struct GraphRecords {
  std::shared_ptr<const proto::Graph> header;  // every field but nodes
  std::shared_ptr<const NodeRecords> nodes;
};

// A binary Graph's records, checked on up to `threads` threads (0: every
// core) from `min_bytes_per_thread` bytes a thread. False when protobuf
// would reject `data` (the same inputs as ParseFromCodedStream with a
// recursion limit of 64). `owner` keeps `data` alive; records view it.
bool parse_graph_records(std::string_view data, std::shared_ptr<const void> owner, unsigned threads,
                         GraphRecords& out, size_t min_bytes_per_thread = size_t{4} << 20);

// The records of a message already parsed (text and JSON inputs, tests).
// Throws InputError naming `source`, the node and the field when a string
// is not UTF-8 (binary protobuf cannot hold it; text and JSON parsers let
// some through).
GraphRecords records_of(const proto::Graph& graph, const std::string& source);

}  // namespace pt
