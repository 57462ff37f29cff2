#include "prepare/cse.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "graph/name_hash.h"
#include "prepare/cse_key.h"
#include "prepare/mutation.h"
#include "prepare/output_alias.h"

namespace pt {

namespace {

// Nodes PyTorch copies unchanged: they neither merge nor serve as targets.
// So are the nodes whose storage aliases a graph output (cse_merge_targets
// tests those): outputs that went through the same ops are still distinct
// tensors.
bool never_merged(const Node& n, const OpClasses& ops) {
  if (n.op != OpKind::CallFunction) return true;  // placeholder, get_attr, output
  // Random ops must draw fresh numbers each time (the list is the
  // cse_rand_ops class, editable in the settings).
  if (ops.cse_rand.count(n.packet)) return true;
  // aten.empty is uninitialized memory, and fuses into its consumer anyway.
  return n.packet == "aten.empty";
}

// The remembered node per key, found through an open-addressing table
// whose slots keep 32 bits of the hash beside the entry: a probe past
// another key reads no entry and no key bytes (at 10^6 nodes each is a
// cache miss). The table keeps the keys' bytes in one buffer and each
// entry's full hash: growing it rehashes no key (at 10^6 nodes, 89,000
// keys, each a heap string re-read at every doubling before).
class KeyTable {
 public:
  struct Entry {
    uint64_t hash;
    size_t offset;  // the key's bytes in bytes_
    size_t length;
    NodeId node;
    int64_t region;
  };

  explicit KeyTable(size_t expected) {
    size_t cap = 16;
    while (cap < 2 * expected) cap *= 2;
    slots_.assign(cap, 0);
    entries_.reserve(expected);
  }

  // The entry for `key` (copied in when absent), inserted with
  // {node, region} when absent (`fresh`).
  Entry& find_or_insert(std::string_view key, NodeId node, int64_t region, bool& fresh) {
    if (2 * (entries_.size() + 1) > slots_.size()) grow();
    const uint64_t hash = name_hash(key);
    const uint64_t tag = hash >> 32 << 32;
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      if (slots_[i] == 0) {
        entries_.push_back({hash, bytes_.size(), key.size(), node, region});
        bytes_.append(key);
        slots_[i] = tag | entries_.size();
        fresh = true;
        return entries_.back();
      }
      if ((slots_[i] >> 32 << 32) != tag) continue;
      Entry& e = entries_[(slots_[i] & 0xffffffffu) - 1];
      if (e.hash == hash && std::string_view(bytes_).substr(e.offset, e.length) == key) {
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
      size_t i = entries_[(s & 0xffffffffu) - 1].hash & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Entry> entries_;
  std::string bytes_;            // every key, back to back
  std::vector<uint64_t> slots_;  // hash's high 32 bits | entry index + 1; 0 = empty
};

// The first node of each signature (below), by the signature's hash: open
// addressing over 8-byte slots, each the hash's high 32 bits (the low ones
// pick the slot) beside the node. Two signatures that agree in the bits
// kept are taken as one: their nodes are then keyed in full and told apart
// by their keys, so a collision costs work, never a wrong merge. At 10^6
// nodes the table is 16 MiB; with 16-byte slots (the whole hash and the
// node's region) it was 32 MiB, whose fresh pages alone took 80-90 ms of
// the 170-290 ms CSE stage in some runs on the measured VM.
class SignatureTable {
 public:
  // At most three quarters full (`expected` is every node; only those
  // that take part are inserted): at half full, gpt2_l96's table was
  // 512 KiB where 256 KiB does.
  explicit SignatureTable(size_t expected) {
    size_t cap = 16;
    while (cap * 3 < 4 * expected) cap *= 2;
    slots_.assign(cap, 0);
  }

  // Starts loading the slot `hash` probes first (see cse_merge_targets).
  void prefetch(uint64_t hash) const { __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]); }

  // The node first seen with `hash`, claiming the slot for `node` when
  // there was none (`fresh`); kNoNode once keyed() was called for it.
  NodeId find_or_insert(uint64_t hash, NodeId node, bool& fresh) {
    const uint64_t tag = hash >> 32 << 32 | uint64_t{1} << 32;  // bit 32 set: a claimed slot is never 0 (empty)
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      uint64_t& s = slots_[i];
      if (s == 0) {
        s = tag | static_cast<uint32_t>(node);
        at_ = i;
        fresh = true;
        return node;
      }
      if ((s >> 32 << 32) == tag) {
        at_ = i;
        fresh = false;
        return static_cast<NodeId>(static_cast<int32_t>(static_cast<uint32_t>(s)));
      }
    }
  }

  // The node find_or_insert last returned is keyed: later finds of its
  // signature return kNoNode.
  void keyed() { slots_[at_] = slots_[at_] >> 32 << 32 | static_cast<uint32_t>(kNoNode); }

 private:
  std::vector<uint64_t> slots_;  // power-of-two size, at most 3/4 full (one slot per node)
  size_t at_ = 0;                // the slot find_or_insert last returned
};

// What two nodes with equal keys (cse_key.h) have in common, hashed: the
// op packet and the merged-into node of each reference, in order. Nodes
// whose signature no other node shares cannot merge. The packet, not the
// target: equal targets have equal packets, and the packet is the graph's
// pooled copy, in cache, where the target's bytes lie in the node's record
// (at 10^6 nodes a cache miss per node, twice with the look-ahead below).
// Overloads of one packet share a signature and are told apart by their keys.
// The seed is the part no merge changes (the packet and the input count).
constexpr uint64_t kSignatureMul = 0x9e3779b97f4a7c15ULL;

uint64_t signature_seed(const Node& n) { return name_hash(n.packet) ^ (n.inputs.size() * kSignatureMul); }

uint64_t signature(uint64_t seed, const Node& n, const std::vector<NodeId>& kept_as) {
  uint64_t h = seed;
  for (NodeId in : n.inputs) h = std::rotl((h ^ static_cast<uint64_t>(kept_as[in])) * kSignatureMul, 29);
  return h;
}

// What the walk in cse_merge_targets reads of each node that no merge
// changes, found for every node before it: whether the node can take part
// (present, and not never_merged but for the output aliases), the mutation
// region it lies in, and its signature's seed. The walk's look-ahead reads
// them again for the node kLookAhead places on.
struct NodeTraits {
  std::vector<uint8_t> takes_part;
  std::vector<uint64_t> seed;    // of the nodes that take part
  std::vector<int32_t> region;  // of the present nodes: mutation nodes up to and including it
};

// Fills `t`, whose arrays the caller sized.
void fill_node_traits(const Graph& g, const Flags& present, const OpClasses& ops, NodeTraits& t) {
  int32_t region = 0;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!present[id]) continue;
    if (is_mutation_node(g, id)) ++region;
    t.region[id] = region;
    if (!never_merged(g[id], ops)) {
      t.takes_part[id] = 1;
      t.seed[id] = signature_seed(g[id]);
    }
  }
}

}  // namespace

std::vector<NodeId> cse_merge_targets(const Graph& g, const Flags& present, const OpClasses& ops) {
  const NodeId count = g.size();
  std::vector<NodeId> kept_as(static_cast<size_t>(count));
  for (NodeId id = 0; id < count; ++id) kept_as[id] = id;
  NodeTraits traits;
  traits.takes_part.assign(static_cast<size_t>(count), 0);
  traits.seed.resize(static_cast<size_t>(count));
  traits.region.resize(static_cast<size_t>(count));
  fill_node_traits(g, present, ops, traits);
  const Flags alias = aliases_output(g, present, ops);

  // Keys are written only for nodes that share their signature (op packet and
  // merged references) with another: a node alone with its signature has
  // no equal. Writing every node's key was most of CSE (gpt2_124m: 3.8M of
  // its 5.8M instructions; most nodes differ in their inputs). The first
  // node of a signature is keyed when a second one arrives, with the region
  // it was seen in: no other node can share its key (equal keys have equal
  // signatures), so the table ends as if every key had been written in
  // graph order.
  SignatureTable first_of(static_cast<size_t>(count));
  KeyTable seen(64);
  std::string key;
  CseKeyScratch record;
  auto add_key = [&](NodeId id, int64_t region) {
    if (!cse_key(g, id, kept_as, key, record)) return;  // a NaN argument: equal to nothing
    bool fresh = false;
    KeyTable::Entry& e = seen.find_or_insert(key, id, region, fresh);
    if (fresh) return;
    if (e.region == region) {
      kept_as[id] = e.node;
    } else {
      // Across a mutation the earlier value may differ: keep this node, and
      // let later duplicates merge into it instead.
      e.node = id;
      e.region = region;
    }
  };
  // At 10^6 nodes the table is 16 MiB and each first probe a cache miss
  // (~180 ns on the measured VM: most of CSE). The slot of the node
  // kLookAhead places on is requested early, from its signature as the
  // merges so far give it; a merge in between only makes that a wasted
  // hint, since the probe below recomputes the signature. Below
  // kPrefetchFrom nodes the table (1 MiB there) stays in the caches and the
  // second signature would only add work (gpt2_124m: +0.29M instructions).
  constexpr NodeId kLookAhead = 8;
  constexpr NodeId kPrefetchFrom = NodeId{1} << 16;
  const NodeId prefetch_to = count >= kPrefetchFrom ? count : 0;
  for (NodeId id = 0; id < count; ++id) {
    if (const NodeId ahead = id + kLookAhead; ahead < prefetch_to && traits.takes_part[ahead]) {
      first_of.prefetch(signature(traits.seed[ahead], g[ahead], kept_as));
    }
    if (!traits.takes_part[id] || alias[id]) continue;
    bool fresh = false;
    const NodeId first = first_of.find_or_insert(signature(traits.seed[id], g[id], kept_as), id, fresh);
    if (fresh) continue;
    if (first != kNoNode) {
      first_of.keyed();
      add_key(first, traits.region[first]);
    }
    add_key(id, traits.region[id]);
  }
  return kept_as;
}

}  // namespace pt
