#include "partition/ban_heuristics.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <tuple>

namespace pt {

namespace {

bool is_collective(const Node& n) { return n.packet.starts_with("_c10d_functional."); }

uint64_t positional_input_bytes(const Graph& g, const Node& n) {
  uint64_t total = 0;
  for (NodeId in : n.positional_inputs) total += g[in].size_bytes;  // a repeated arg counts twice
  return total;
}

// Whether X's value (or a view of it) is read by a backward node that cannot
// fuse with it, so the backward would materialize it anyway.
// The walk visits X's views, which are few: they are remembered in a short
// list, and only a walk past 32 views marks a graph-sized bitmap (one per
// call was a memset of the whole graph for every forward node: 10% of a
// 10^5-node run, quadratic in the graph).
bool materialized_in_backward(const Graph& g, const Classification& c, NodeId id, const NodeOpClasses& ops) {
  if (ops.is_view(id)) return false;
  // X's own readers first: most nodes have no view among them, and then
  // they decide alone, with no lists to allocate (two per forward node were
  // 440,000 allocations in build_network at 10^6 nodes). The walk below
  // reads them again, in the same order, when a view needs following.
  bool has_view_reader = false;
  for (NodeId u : g.users[id]) {
    if (!c.required_fw[u] && !ops.is_fusible(id, u)) return true;
    has_view_reader = has_view_reader || ops.is_view(u);
  }
  if (!has_view_reader) return false;
  std::vector<NodeId> work{id};
  std::vector<NodeId> seen_list{id};
  Flags seen_bits;
  auto first_visit = [&](NodeId u) {
    if (!seen_bits.empty()) {
      if (seen_bits[u]) return false;
      seen_bits[u] = true;
      return true;
    }
    if (std::find(seen_list.begin(), seen_list.end(), u) != seen_list.end()) return false;
    seen_list.push_back(u);
    if (seen_list.size() > 32) {
      seen_bits.assign(g.size(), false);
      for (NodeId v : seen_list) seen_bits[v] = true;
    }
    return true;
  };
  while (!work.empty()) {
    const NodeId cur = work.back();
    work.pop_back();
    for (NodeId u : g.users[cur]) {
      if (!c.required_fw[u] && !ops.is_fusible(cur, u)) return true;
      if (ops.is_view(u) && first_visit(u)) work.push_back(u);
    }
  }
  return false;
}

}  // namespace

bool must_recompute(const Node& n) {
  return n.recompute == Recompute::MustRecompute || n.recompute == Recompute::PreferRecompute;
}

RandomRole random_role(const Graph& g, NodeId id, const OpClasses& ops) {
  const Node& n = g[id];
  if (n.op != OpKind::CallFunction) return RandomRole::None;
  if (n.packet == "prims.inductor_seeds") return RandomRole::SeedGenerator;
  if (n.packet == "prims.inductor_lookup_seed") return RandomRole::SeedLookup;
  const bool reads_seed = std::any_of(n.inputs.begin(), n.inputs.end(), [&](NodeId a) {
    return g[a].packet == "prims.inductor_lookup_seed" || g[a].packet == "prims.inductor_seeds";
  });
  if (reads_seed) return RandomRole::SeededRandom;
  return ops.is_random(n) ? RandomRole::UnseededRandom : RandomRole::None;
}

bool recompute_changes_random_numbers(const Graph& g, NodeId id, const OpClasses& ops) {
  // Asked of every forward node: the common answer (no seed, not a random
  // op) without reading the node's inputs.
  const Node& n = g[id];
  if (n.op != OpKind::CallFunction) return false;
  if (n.packet == "prims.inductor_seeds" || n.packet == "prims.inductor_lookup_seed") return true;
  return ops.is_random(n) && random_role(g, id, ops) == RandomRole::UnseededRandom;
}

bool BanSet::try_ban(NodeId id, BanReason why) {
  const Node& n = g_[id];
  if (s_.op_classes.is_view(n)) return false;
  // The memory budget's un-banning never lifts a random-seed ban (see
  // BanOptions::rng_seeds).
  if (!o_.dont_ban.empty() && o_.dont_ban[id] && !is_collective(n) && why != BanReason::RandomSeed) return false;
  if (must_recompute(n)) return false;
  if (n.value_kind == ValueKind::Sym && n.sym_kind == SymKind::Float) return false;
  if (reason_[id] == BanReason::None) order_.push_back(id);
  if (reason_[id] != BanReason::RandomSeed) reason_[id] = why;  // the rule that no setting of the budget lifts
  return true;
}

BanReason should_ban_recomputation(const Graph& g, const Classification& c, NodeId id, const Settings& s,
                                   const BanOptions& o, const NodeOpClasses& ops) {
  const Node& n = g[id];
  if (n.op != OpKind::CallFunction || n.packet == "operator.getitem") return BanReason::None;
  if (n.recompute == Recompute::MustSave) return BanReason::MarkedMustSave;
  // Recomputing a seed, its lookup or a random op that reads no seed draws
  // other random numbers in the backward than the forward drew (wrong
  // gradients). PyTorch 2.11 may recompute them under a memory budget;
  // ban_recompute_rng_seeds=false restores its choice.
  if (o.rng_seeds && recompute_changes_random_numbers(g, id, s.op_classes)) return BanReason::RandomSeed;
  if (s.recompute_views && ops.is_view(id)) return BanReason::None;
  if (n.packet == "aten.lift_fresh_copy" || n.packet == "aten.lift_fresh") return BanReason::None;
  if (o.not_in_allowlist) {
    if (!ops.is_recomputable(id)) return BanReason::NotInAllowlist;
  } else {
    if (ops.is_random(id)) return BanReason::RandomOp;
    if (ops.is_compute_intensive(id)) return BanReason::ComputeIntensive;
  }
  if (o.materialized_backward && materialized_in_backward(g, c, id, ops)) return BanReason::MaterializedInBackward;
  const double dist = static_cast<double>(c.dist_from_bw[id]);
  if (dist < 1000 && dist > s.max_dist_from_bw) return BanReason::TooFar;
  // Any op whose output is much smaller than its inputs (a reduction in
  // effect): recomputing it would keep the large inputs alive.
  if (o.reductions && n.size_bytes * 4 < positional_input_bytes(g, n)) return BanReason::ReductionOp;
  return BanReason::None;
}

namespace {

// PyTorch's find_first_unfusible: the forward order of the first use, walking
// forward from `start` through users, that cannot fuse with its producer.
// Called once per forward node: the heap and the queued marks are the
// caller's, reused, rather than a priority_queue and a std::set allocated
// per call (most of ban_used_far_apart's time). `queued` is indexed by
// 2 * fw_order + fusible (fw_order identifies the node) and is all zero
// between calls.
class FirstUnfusible {
 public:
  FirstUnfusible(const Graph& g, const Classification& c, const NodeOpClasses& ops)
      : g_(g), c_(c), ops_(ops), queued_(2 * static_cast<size_t>(g.size()) + 2, 0) {}

  int32_t find(const std::vector<NodeId>& start, int32_t max_range) {
    for (NodeId n : start) push(c_.fw_order[n], n, true);
    int32_t result = max_range;
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
      const auto [order, node, fusible] = heap_.back();
      heap_.pop_back();
      mark(order, fusible) = 0;
      if (!fusible) {
        result = order;
        break;
      }
      for (NodeId u : g_.users[node]) {
        if (!c_.required_fw[u] || c_.fw_order[u] > max_range) continue;
        push(c_.fw_order[u], u, ops_.is_fusible(node, u));
      }
    }
    for (const auto& [order, node, fusible] : heap_) mark(order, fusible) = 0;
    heap_.clear();
    return result;
  }

 private:
  using Entry = std::tuple<int32_t, NodeId, bool>;  // (fw_order, node, fusible); a min-heap
  uint8_t& mark(int32_t order, bool fusible) { return queued_[2 * static_cast<size_t>(order) + fusible]; }
  void push(int32_t order, NodeId node, bool fusible) {
    if (mark(order, fusible)) return;
    mark(order, fusible) = 1;
    heap_.emplace_back(order, node, fusible);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
  }

  const Graph& g_;
  const Classification& c_;
  const NodeOpClasses& ops_;
  std::vector<uint8_t> queued_;
  std::vector<Entry> heap_;
};

}  // namespace

void ban_used_far_apart(const Graph& g, const Classification& c, const NodeOpClasses& ops, BanSet& bans) {
  std::vector<NodeId> fw_users;  // reused: one allocation, not one per forward node
  FirstUnfusible first_unfusible(g, c, ops);
  for (NodeId used = 0; used < g.size(); ++used) {  // graph order = forward order for required_fw nodes
    if (!c.required_fw[used]) continue;
    fw_users.clear();
    int32_t max_order = -1;
    for (NodeId u : g.users[used]) {
      if (!c.required_fw[u]) continue;
      fw_users.push_back(u);
      max_order = std::max(max_order, c.fw_order[u]);
    }
    if (fw_users.empty()) continue;
    const int32_t first = first_unfusible.find(fw_users, max_order);
    for (NodeId u : fw_users) {  // users are in graph order, i.e. forward order
      if (c.fw_order[u] > first && ops.is_fusible(used, u) && !bans.banned(u)) {
        bans.try_ban(u, BanReason::UsedFarApart);
      }
    }
  }
}

void ban_long_fusible_chains(const Graph& g, const Classification& c, const NodeOpClasses& ops, BanSet& bans) {
  // 100 is PyTorch's arbitrary bound against degenerate recompute chains.
  constexpr int32_t kMaxChain = 100;
  Flags visited(g.size(), false);  // shared by all start nodes, as in PyTorch
  using Entry = std::pair<int32_t, NodeId>;
  // A min-heap by std::push_heap/pop_heap (what std::priority_queue does),
  // on one vector for all start nodes instead of a queue allocated per start.
  std::vector<Entry> heap;
  const auto push = [&heap](int32_t order, NodeId id) {
    heap.emplace_back(order, id);
    std::push_heap(heap.begin(), heap.end(), std::greater<Entry>{});
  };
  for (NodeId start = 0; start < g.size(); ++start) {
    if (!c.required_fw[start]) continue;
    const int32_t start_order = c.fw_order[start];
    heap.clear();
    push(start_order, start);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<Entry>{});
      const auto [order, cur] = heap.back();
      heap.pop_back();
      if (visited[cur]) continue;
      visited[cur] = true;
      if (order > start_order + kMaxChain && heap.empty()) {
        bans.try_ban(cur, BanReason::LongFusibleChain);
        break;
      }
      for (NodeId u : g.users[cur]) {
        if (c.required_fw[u] && ops.is_fusible(cur, u) && !bans.banned(u)) push(c.fw_order[u], u);
      }
    }
  }
}

}  // namespace pt
