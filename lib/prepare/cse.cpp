#include "prepare/cse.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "graph/name_hash.h"
#include "prepare/cse_key.h"
#include "prepare/mutation.h"
#include "prepare/output_alias.h"

namespace pt {

namespace {

// Nodes PyTorch copies unchanged: they neither merge nor serve as targets.
bool never_merged(const Node& n, bool aliases_output, const OpClasses& ops) {
  if (n.op != OpKind::CallFunction) return true;  // placeholder, get_attr, output
  // Random ops must draw fresh numbers each time (the list is the
  // cse_rand_ops class, editable in the settings).
  if (ops.cse_rand.count(n.packet)) return true;
  // aten.empty is uninitialized memory, and fuses into its consumer anyway.
  if (n.packet == "aten.empty") return true;
  // Outputs that went through the same ops are still distinct tensors.
  return aliases_output;
}

// The remembered node per key. Keys are stored back to back in one buffer
// and found through an open-addressing table, so a 10^6-node graph costs no
// allocation per node.
class KeyTable {
 public:
  struct Entry {
    size_t offset;
    size_t size;
    NodeId node;
    int64_t region;
  };

  explicit KeyTable(size_t expected) {
    size_t cap = 16;
    while (cap < 2 * expected) cap *= 2;
    slots_.assign(cap, 0);
  }

  // The entry for `key`, inserted with {node, region} when absent (`fresh`).
  Entry& find_or_insert(std::string_view key, NodeId node, int64_t region, bool& fresh) {
    if (2 * (entries_.size() + 1) > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = name_hash(key) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == 0) {
        entries_.push_back({bytes_.size(), key.size(), node, region});
        bytes_.append(key);
        slots_[i] = entries_.size();
        fresh = true;
        return entries_.back();
      }
      Entry& e = entries_[slots_[i] - 1];
      if (std::string_view(bytes_).substr(e.offset, e.size) == key) {
        fresh = false;
        return e;
      }
    }
  }

 private:
  void grow() {
    std::vector<size_t> old = std::move(slots_);
    slots_.assign(old.size() * 2, 0);
    const size_t mask = slots_.size() - 1;
    for (size_t s : old) {
      if (s == 0) continue;
      const Entry& e = entries_[s - 1];
      size_t i = name_hash(std::string_view(bytes_).substr(e.offset, e.size)) & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::string bytes_;
  std::vector<Entry> entries_;
  std::vector<size_t> slots_;  // entry index + 1; 0 = empty
};

}  // namespace

std::vector<NodeId> cse_merge_targets(const Graph& g, const std::vector<bool>& present, const OpClasses& ops) {
  const NodeId count = g.size();
  std::vector<NodeId> kept_as(static_cast<size_t>(count));
  for (NodeId id = 0; id < count; ++id) kept_as[id] = id;
  const std::vector<bool> alias = aliases_output(g, present, ops);

  KeyTable seen(static_cast<size_t>(count));
  std::string key;
  int64_t region = 0;
  for (NodeId id = 0; id < count; ++id) {
    if (!present[id]) continue;
    if (is_mutation_node(g, id)) ++region;
    if (never_merged(g[id], alias[id], ops)) continue;
    if (!cse_key(g, id, kept_as, key)) continue;  // a NaN argument: equal to nothing
    bool fresh = false;
    KeyTable::Entry& e = seen.find_or_insert(key, id, region, fresh);
    if (fresh) continue;
    if (e.region == region) {
      kept_as[id] = e.node;
    } else {
      // Across a mutation the earlier value may differ: keep this node, and
      // let later duplicates merge into it instead.
      e.node = id;
      e.region = region;
    }
  }
  return kept_as;
}

}  // namespace pt
