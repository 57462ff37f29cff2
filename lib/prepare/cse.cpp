#include "prepare/cse.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "graph/name_hash.h"
#include "graph/side_by_side.h"
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

// The remembered node per key. The keys stay where KeyChunks wrote them
// (views, no copy) and are found through an open-addressing table whose
// slots keep 32 bits of the hash beside the entry: a probe past another key
// reads no entry and no key bytes (at 10^6 nodes each is a cache miss).
class KeyTable {
 public:
  struct Entry {
    std::string_view key;
    NodeId node;
    int64_t region;
  };

  explicit KeyTable(size_t expected) {
    size_t cap = 16;
    while (cap < 2 * expected) cap *= 2;
    slots_.assign(cap, 0);
    entries_.reserve(expected);
  }

  // The entry for `key`, inserted with {node, region} when absent (`fresh`).
  // `key` must outlive the table.
  Entry& find_or_insert(std::string_view key, NodeId node, int64_t region, bool& fresh) {
    if (2 * (entries_.size() + 1) > slots_.size()) grow();
    const uint64_t hash = name_hash(key);
    const uint64_t tag = hash >> 32 << 32;
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      if (slots_[i] == 0) {
        entries_.push_back({key, node, region});
        slots_[i] = tag | entries_.size();
        fresh = true;
        return entries_.back();
      }
      if ((slots_[i] >> 32 << 32) != tag) continue;
      Entry& e = entries_[(slots_[i] & 0xffffffffu) - 1];
      if (e.key == key) {
        fresh = false;
        return e;
      }
    }
  }

 private:
  void grow() {
    std::vector<uint64_t> old = std::move(slots_);
    slots_.assign(old.size() * 2, 0);
    const size_t mask = slots_.size() - 1;
    for (uint64_t s : old) {
      if (s == 0) continue;
      size_t i = name_hash(entries_[(s & 0xffffffffu) - 1].key) & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Entry> entries_;
  std::vector<uint64_t> slots_;  // hash's high 32 bits | entry index + 1; 0 = empty
};

// The key templates (cse_key.h) of a run of nodes, back to back.
struct KeyChunk {
  enum State : uint8_t { kNone, kKey, kNaN };
  std::string bytes;
  std::vector<size_t> key_end;    // per node: its key is bytes[previous end, this)
  std::vector<uint32_t> ref_at;   // reference offsets of all the run's keys
  std::vector<size_t> ref_end;    // per node: its offsets are ref_at[previous end, this)
  std::vector<uint8_t> state;     // per node: kNone (never merged whatever its aliasing), kKey, kNaN
};

// Nodes that are never merged whatever their aliasing: no template needed.
bool never_merged_anyway(const Node& n, const OpClasses& ops) { return never_merged(n, false, ops); }

void fill_chunk(const Graph& g, const std::vector<bool>& present, const OpClasses& ops, NodeId begin, NodeId end,
                KeyChunk& c) {
  const auto nodes = static_cast<size_t>(end - begin);
  c.key_end.reserve(nodes);
  c.ref_end.reserve(nodes);
  c.state.reserve(nodes);
  for (NodeId id = begin; id < end; ++id) {
    const size_t at = c.bytes.size();
    const size_t refs = c.ref_at.size();
    uint8_t state = KeyChunk::kNone;
    if (present[id] && !never_merged_anyway(g[id], ops)) {
      state = append_key_template(g, id, c.bytes, c.ref_at) ? KeyChunk::kKey : KeyChunk::kNaN;
      if (state == KeyChunk::kNaN) {
        c.bytes.resize(at);
        c.ref_at.resize(refs);
      }
    }
    c.key_end.push_back(c.bytes.size());
    c.ref_end.push_back(c.ref_at.size());
    c.state.push_back(state);
  }
}

constexpr NodeId kChunkNodes = 4096;

}  // namespace

std::vector<NodeId> cse_merge_targets(const Graph& g, const std::vector<bool>& present, const OpClasses& ops,
                                      unsigned threads) {
  const NodeId count = g.size();
  std::vector<NodeId> kept_as(static_cast<size_t>(count));
  for (NodeId id = 0; id < count; ++id) kept_as[id] = id;

  // Two parts of the work read the graph only: which nodes alias an output,
  // and the keys' templates (everything but the merges of their inputs). On
  // large graphs a second thread finds the aliases, then helps write the
  // templates, taking runs of nodes from a shared counter; only the pass in
  // graph order below, which decides the merges, is sequential. 10^6 nodes:
  // CSE took 1.16 s of the 1.4 s prepare stage on one thread, its reads of
  // the nodes' messages missing the cache. The result does not depend on
  // who wrote which template.
  const auto chunk_count = static_cast<size_t>((count + kChunkNodes - 1) / kChunkNodes);
  std::vector<KeyChunk> chunks(chunk_count);
  std::atomic<size_t> next_chunk{0};
  auto fill_chunks = [&] {
    for (size_t c = next_chunk++; c < chunk_count; c = next_chunk++) {
      const auto begin = static_cast<NodeId>(c) * kChunkNodes;
      fill_chunk(g, present, ops, begin, std::min(count, begin + kChunkNodes), chunks[c]);
    }
  };
  std::vector<bool> alias;
  run_side_by_side(
      split_in_two(threads, count),
      [&] {
        alias = aliases_output(g, present, ops);
        fill_chunks();
      },
      fill_chunks);

  KeyTable seen(static_cast<size_t>(count));
  int64_t region = 0;
  for (NodeId id = 0; id < count; ++id) {
    if (!present[id]) continue;
    if (is_mutation_node(g, id)) ++region;
    KeyChunk& c = chunks[static_cast<size_t>(id / kChunkNodes)];
    const auto k = static_cast<size_t>(id % kChunkNodes);
    if (c.state[k] != KeyChunk::kKey || alias[id]) continue;  // never merged, or a NaN argument: equal to nothing
    const size_t key_begin = k == 0 ? 0 : c.key_end[k - 1];
    const size_t ref_begin = k == 0 ? 0 : c.ref_end[k - 1];
    char* key = c.bytes.data() + key_begin;
    patch_key_refs(key, std::span<const uint32_t>(c.ref_at).subspan(ref_begin, c.ref_end[k] - ref_begin), kept_as);
    bool fresh = false;
    KeyTable::Entry& e = seen.find_or_insert(std::string_view(key, c.key_end[k] - key_begin), id, region, fresh);
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
