// Node name -> NodeId, for resolving the names the protobuf args carry.
// A flat open-addressing table: one 16-byte slot per entry (a view of the
// name and its id), no allocation per name, and name_hash (name_hash.h). On a
// 10^6-node graph std::unordered_map<string_view, NodeId> spent a tenth of
// the run allocating nodes, hashing byte by byte and chasing bucket lists
// Keys view strings the owner keeps alive (the graph's records).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace pt {

using NodeId = int32_t;

class NameIndex {
 public:
  // Room for `count` names without growing.
  void reserve(size_t count);
  // Adds `name` -> `id` unless `name` is there: {the id it maps to, whether it was added}.
  std::pair<NodeId, bool> emplace(std::string_view name, NodeId id);
  // emplace() with the name's name_hash (name_hash.h) already computed.
  std::pair<NodeId, bool> emplace(std::string_view name, NodeId id, uint64_t hash);
  // The id of `name`, or -1 (kNoNode) when absent.
  NodeId find(std::string_view name) const;
  // find() with the name's name_hash (name_hash.h) already computed.
  NodeId find(std::string_view name, uint64_t hash) const;
  bool contains(std::string_view name) const { return find(name) >= 0; }
  // Starts loading the slot a name of this name_hash probes first: for a
  // caller that knows names ahead (on a 10^6-node graph the table is 32 MiB
  // and every first probe a cache miss).
  void prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    const char* data = nullptr;  // nullptr: empty
    uint32_t length = 0;
    NodeId id = -1;
  };
  void grow(size_t capacity);

  std::vector<Slot> slots_;  // power-of-two size, at most 3/4 full
  size_t size_ = 0;
};

}  // namespace pt
