// The recomputation bans (docs/design.md section 4): per-node rules
// (should_ban_recomputation) and the two chain heuristics. Each ban becomes a
// source -> X_in edge of infinite capacity. Every rule names the setting that
// turns it off (see BanOptions and ban_reason.h).
#pragma once

#include <vector>

#include "analysis/classify.h"
#include "analysis/node_op_classes.h"
#include "graph/graph.h"
#include "partition/ban_options.h"
#include "partition/ban_reason.h"
#include "settings/settings.h"

namespace pt {

// Bans in the order they were made, with the refusal rules applied.
class BanSet {
 public:
  BanSet(const Graph& g, const Settings& s, const BanOptions& o) : g_(g), s_(s), o_(o), reason_(g.size(), BanReason::None) {}

  // Bans `id` unless refused: views (always recomputable), must-recompute
  // nodes, symbolic floats, and nodes the memory budget un-banned
  // (collectives stay banned). Returns whether the ban was made.
  bool try_ban(NodeId id, BanReason why);
  bool banned(NodeId id) const { return reason_[id] != BanReason::None; }
  BanReason reason(NodeId id) const { return reason_[id]; }
  const std::vector<NodeId>& order() const { return order_; }

 private:
  const Graph& g_;
  const Settings& s_;
  const BanOptions& o_;
  std::vector<BanReason> reason_;
  std::vector<NodeId> order_;
};

bool must_recompute(const Node& n);

// What a node does with random numbers. Inductor's random ops read a seed:
// prims.inductor_seeds draws a tensor of seeds, prims.inductor_lookup_seed
// picks one, and the op (prims.inductor_random, ...) reads it. Other random
// ops (the random_ops class: aten.native_dropout, aten.rand_like, ...) read
// the global generator's state, which no graph value holds.
enum class RandomRole : uint8_t {
  None,
  SeedGenerator,   // prims.inductor_seeds
  SeedLookup,      // prims.inductor_lookup_seed
  SeededRandom,    // reads a seed lookup or generator: recomputing it with the saved seed is exact
  UnseededRandom,  // a random op reading no seed
};
RandomRole random_role(const Graph& g, NodeId id, const OpClasses& ops);
// Whether recomputing the node in the backward draws other random numbers
// than the forward did, unless its seed is saved: every role but None and
// SeededRandom (whose seed lookup is then saved or recomputed itself).
bool recompute_changes_random_numbers(const Graph& g, NodeId id, const OpClasses& ops);

// PyTorch's should_ban_recomputation for a required_fw node: the first rule
// that answers, or BanReason::None. `ops`: the graph's nodes classified by
// s.op_classes (as in the two below).
BanReason should_ban_recomputation(const Graph& g, const Classification& c, NodeId id, const Settings& s,
                                   const BanOptions& o, const NodeOpClasses& ops);

// ban_recompute_used_far_apart: a fusible user consumed after the first
// unfusible use of its producer would stretch the producer's lifetime.
void ban_used_far_apart(const Graph& g, const Classification& c, const NodeOpClasses& ops, BanSet& bans);
// ban_recompute_long_fusible_chains: recomputing a chain of more than 100
// fusible ops is not worth it; ban the far end.
void ban_long_fusible_chains(const Graph& g, const Classification& c, const NodeOpClasses& ops, BanSet& bans);

}  // namespace pt
