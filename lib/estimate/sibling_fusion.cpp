#include "estimate/sibling_fusion.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <numeric>
#include <span>
#include <utility>

#include "estimate/column_reduction.h"


namespace pt {

namespace {

// torch/_inductor/config.py max_fusion_size: nodes one fused kernel may hold.
constexpr size_t kMaxFusionSize = 64;

class SiblingMerger {
 public:
  SiblingMerger(const Graph& g, const FusionGroups& f, const std::vector<NodeId>& first,
                const std::vector<uint64_t>& numel, const std::vector<NodeId>& recomputed, const BandwidthOptions& o,
                const Flags& buffers)
      : g_(g), f_(f), o_(o), numel_(numel), buffers_(buffers), kernels_(first.size()) {
    place_recomputed(recomputed);
  }

  std::vector<int32_t> run() {
    parent_.resize(kernels_);
    std::iota(parent_.begin(), parent_.end(), 0);
    root_.assign(static_cast<size_t>(g_.size()), -1);
    for (NodeId id = 0; id < g_.size(); ++id) {
      if (f_.role[id] == NodeRole::Fused && f_.kernel[id] >= 0) root_[id] = f_.kernel[id];
    }
    // Each kernel's fused nodes (root_ says which, before any merge); a
    // group that others merge into gets a list of its own.
    initial_ = list_by_kernel(root_, kernels_);
    merged_.resize(kernels_);
    spans_.resize(kernels_);
    for (size_t k = 0; k < kernels_; ++k) {
      if (!members(static_cast<int32_t>(k)).empty()) spans_[k] = span_of(members(static_cast<int32_t>(k)));
    }
    max_read_.assign(kernels_, 0);
    column_shape_.assign(kernels_, {0, 0});
    row_shape_.assign(kernels_, {0, 0});
    column_reads_.resize(kernels_);
    if (o_.column_reductions_start_kernels) {
      for (size_t k = 0; k < kernels_; ++k) {
        for (NodeId m : members(static_cast<int32_t>(k))) {
          if (!f_.reduction[m] || g_[m].positional_inputs.empty()) continue;
          const std::pair<uint64_t, uint64_t> shape{numel(m), numel(g_[m].positional_inputs[0])};
          if (column_reduction_row_bytes(g_, m, f_.channels_last) > 0) {
            column_shape_[k] = shape;
          } else if (shape.first > 1 && shape.first < shape.second) {
            row_shape_[k] = shape;
          }
        }
      }
    }
    seen_.assign(static_cast<size_t>(g_.size()), 0);
    std::vector<std::pair<NodeId, int32_t>> full_reads;  // (buffer, kernel): reads of the kernel's largest size
    std::vector<NodeId> reads;
    // Each member's inputs are read from the Node array, which misses the
    // cache there at 10^6 nodes (a sixth of the merger's samples on that
    // one load): the members of the kernel kPrefetchKernels ahead are
    // requested before this one's are read (the reads below 34 -> 28 ms on
    // the backward, 51 -> 46 on the forward; --threads 1, medians of 5).
    constexpr size_t kPrefetchKernels = 3;
    for (size_t k = 0; k < kernels_; ++k) {
      if (k + kPrefetchKernels < kernels_) {
        for (NodeId m : initial_.of(static_cast<int32_t>(k + kPrefetchKernels))) __builtin_prefetch(&g_[m].inputs);
      }
      collect_reads(static_cast<int32_t>(k), reads);
      std::sort(reads.begin(), reads.end());
      reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
      for (NodeId b : reads) max_read_[k] = std::max(max_read_[k], numel(b));
      if (column_shape_[k].first != 0) {
        collect_reads(static_cast<int32_t>(k), column_reads_[k], true);
        std::sort(column_reads_[k].begin(), column_reads_[k].end());
        column_reads_[k].erase(std::unique(column_reads_[k].begin(), column_reads_[k].end()), column_reads_[k].end());
      }
      for (NodeId b : reads) {
        if (max_read_[k] > 0 && numel(b) == max_read_[k]) full_reads.emplace_back(b, static_cast<int32_t>(k));
      }
    }
    sort_by_buffer(full_reads);  // by buffer, then kernel (= order of first nodes)
    // Each reader of a buffer merges with its first reader whose loops
    // agree with its own (loops_agree; all do unless
    // column_reductions_start_kernels made kernels of sums across rows).
    std::vector<int32_t> first_of_shape;
    for (size_t i = 0; i < full_reads.size();) {
      first_of_shape.assign(1, full_reads[i].second);
      size_t j = i + 1;
      for (; j < full_reads.size() && full_reads[j].first == full_reads[i].first; ++j) {
        const int32_t k = full_reads[j].second;
        const auto same = std::find_if(first_of_shape.begin(), first_of_shape.end(),
                                       [&](int32_t f) { return loops_agree(find(f), find(k)); });
        if (same == first_of_shape.end()) {
          first_of_shape.push_back(k);
        } else {
          try_merge(*same, k);
        }
      }
      i = j;
    }
    std::vector<int32_t> out(kernels_), renamed(kernels_, -1);
    int32_t next = 0;
    for (size_t k = 0; k < kernels_; ++k) {
      const int32_t r = find(static_cast<int32_t>(k));
      if (renamed[r] < 0) renamed[r] = next++;
      out[k] = renamed[r];
    }
    return out;
  }

 private:
  bool in_pass(NodeId id) const { return runs_in_pass(f_, id); }

  // Sorts (buffer, kernel) pairs, made in kernel order, by buffer and then
  // kernel: a stable counting sort by buffer (linear; std::sort of the pairs
  // was a fifth of the merger on gpt2_l96).
  void sort_by_buffer(std::vector<std::pair<NodeId, int32_t>>& pairs) const {
    std::vector<int32_t> start(static_cast<size_t>(g_.size()) + 1, 0);
    for (const auto& [buffer, k] : pairs) ++start[static_cast<size_t>(buffer) + 1];
    for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
    std::vector<std::pair<NodeId, int32_t>> sorted(pairs.size());
    for (const auto& p : pairs) sorted[static_cast<size_t>(start[static_cast<size_t>(p.first)]++)] = p;
    pairs.swap(sorted);
  }

  // A node the pass computes after its inputs: the search for a path
  // between two kernels follows these (an input of the pass, such as a
  // saved value, depends on nothing in it).
  bool computed_in_pass(NodeId id) const {
    return in_pass(id) && (f_.role[id] != NodeRole::Memory || item_computed_in_pass(id));
  }

  // Whether `id` is an item of a tuple the pass computes (var_mean's mean
  // and variance, an attention's output and statistics). The grouping gives
  // such a getitem the role Memory, as its readers load it, yet it depends
  // on its op: missed, a path from a LayerNorm's statistics through the
  // attention to the next LayerNorm was cut there, and the two LayerNorms'
  // reductions merged into one kernel.
  bool item_computed_in_pass(NodeId id) const {
    if (g_[id].packet != "operator.getitem") return false;
    const NodeId base = view_base(g_[id]);
    return base != kNoNode && in_pass(base) && f_.role[base] != NodeRole::Memory;
  }

  // The fused node whose tuple getitem `id` takes, else kNoNode.
  NodeId item_of_fused(NodeId id) const {
    if (!item_computed_in_pass(id)) return kNoNode;
    const NodeId base = view_base(g_[id]);
    return f_.role[base] == NodeRole::Fused ? base : kNoNode;
  }

  // The buffer reading `x` loads into kernel k: x itself when it is in
  // memory (an input, a non-fusible op's output, another kernel's reduction
  // result), the base of a view of memory; kNoNode when x is computed in
  // registers (k's own values, other kernels' values computed again here).
  NodeId loaded_buffer(NodeId x, int32_t k) const {
    while (in_pass(x) && f_.role[x] == NodeRole::Alias) x = view_base(g_[x]);
    if (!in_pass(x)) return kNoNode;
    switch (f_.role[x]) {
      case NodeRole::Memory:
      case NodeRole::OwnKernel: return x;
      case NodeRole::Fused: return f_.reduction[x] && f_.kernel[x] != k ? x : kNoNode;
      default: return kNoNode;
    }
  }

  // What kernel k loads: the buffers its members read from memory, and
  // those that values of other kernels it computes again read (at most
  // kRecomputeWalk of them visited).
  // `own_buffers`: a fused value of another kernel that is a buffer of its
  // own (buffers_) counts as loaded, not as computed again.
  void collect_reads(int32_t k, std::vector<NodeId>& reads, bool own_buffers = false) {
    constexpr int kRecomputeWalk = 32;  // 256 gave the same kernels on every corpus and run-F graph
    reads.clear();
    ++stamp_;
    stack_.clear();
    for (NodeId m : members(k)) {
      __builtin_prefetch(&g_[m].inputs);  // read when popped: a cache miss on the Node array at 10^6 nodes
      stack_.push_back(m);
    }
    int walked = 0;
    while (!stack_.empty()) {
      const NodeId c = stack_.back();
      stack_.pop_back();
      for (NodeId x : g_[c].inputs) {
        if (!in_pass(x) || seen_[x] == stamp_) continue;
        seen_[x] = stamp_;
        const bool own = own_buffers && f_.role[x] == NodeRole::Fused && f_.kernel[x] != k && buffers_[x];
        const NodeId b = own ? x : loaded_buffer(x, k);
        if (b != kNoNode) {
          reads.push_back(b);
        } else if (f_.role[x] == NodeRole::Fused && f_.kernel[x] != k && ++walked <= kRecomputeWalk) {
          stack_.push_back(x);  // computed again in k from its own inputs
        }
      }
    }
  }

  // Where each node runs in the pass PyTorch emits: a recomputed node just
  // before its first reader (the partitioner's
  // reordering_to_mimic_autograd_engine), every other node in graph order.
  void place_recomputed(const std::vector<NodeId>& recomputed) {
    position_.resize(static_cast<size_t>(g_.size()));
    std::iota(position_.begin(), position_.end(), NodeId{0});
    for (auto it = recomputed.rbegin(); it != recomputed.rend(); ++it) {  // readers come later
      NodeId first_reader = kNoNode;
      for (NodeId u : g_.users[*it]) {
        // A reader the pass computes: a forward node the backward only loads
        // (a saved matmul output that read the value in the forward) is no
        // place where the recomputation runs.
        if (computed_in_pass(u) && (first_reader == kNoNode || position_[u] < first_reader)) {
          first_reader = position_[u];
        }
      }
      if (first_reader != kNoNode) position_[*it] = first_reader;
    }
  }

  // Inductor's can_fusion_increase_peak_memory: kernels further apart than
  // 64 scheduler nodes in the emitted order do not fuse (fusing them would
  // keep buffers alive longer). Counted here in graph nodes: the nine models
  // measured on the H200 (docs/bandwidth_model.md) run 4.1-6.1 graph nodes per kernel
  // launched (median 4.4), so 64 scheduler nodes are taken as 256 nodes.
  bool too_far_apart(int32_t a, int32_t b) const {
    constexpr NodeId kMaxSchedulerNodes = 64;
    constexpr NodeId kGraphNodesPerSchedulerNode = 4;
    const auto [a_lo, a_hi] = spans_[a];
    const auto [b_lo, b_hi] = spans_[b];
    return std::max(std::abs(a_lo - b_hi), std::abs(b_lo - a_hi)) > kMaxSchedulerNodes * kGraphNodesPerSchedulerNode;
  }

  // First and last emitted position of `members` (kept per group in spans_,
  // not walked again for each candidate pair).
  std::pair<NodeId, NodeId> span_of(std::span<const NodeId> group) const {
    NodeId lo = position_[group.front()], hi = lo;
    for (NodeId m : group) lo = std::min(lo, position_[m]), hi = std::max(hi, position_[m]);
    return {lo, hi};
  }

  uint64_t numel(NodeId id) const { return numel_[static_cast<size_t>(id)]; }

  int32_t find(int32_t k) {
    while (parent_[k] != k) k = parent_[k] = parent_[parent_[k]];
    return k;
  }

  // Whether y is a Fused node of group a or b (roots, so >= 0).
  bool in_groups(NodeId y, int32_t a, int32_t b) const {
    const int32_t r = root_[y];
    return r == a || r == b;
  }

  // Whether a node of group a reads a reduction result of group b.
  bool reads_reduction_of(int32_t a, int32_t b) const {
    for (NodeId m : members(a)) {
      for (NodeId x : g_[m].inputs) {
        if (root_[x] == b && f_.reduction[x]) return true;  // root_ >= 0: a Fused node of the pass
        const NodeId item_of = in_pass(x) ? item_of_fused(x) : kNoNode;
        if (item_of != kNoNode && root_[item_of] == b && f_.reduction[item_of]) return true;
      }
    }
    return false;
  }

  // No node of a or b reaches another through a node outside both. Forward
  // search from their outside users; nothing after their last node can
  // lead back into them (graph order is topological).
  bool acyclic(int32_t a, int32_t b) {
    const NodeId last = std::max(members(a).back(), members(b).back());
    ++stamp_;
    stack_.clear();
    for (int32_t group : {a, b}) {
      for (NodeId m : members(group)) {
        for (NodeId u : g_.users[m]) {
          if (computed_in_pass(u) && u <= last && !in_groups(u, a, b)) stack_.push_back(u);
        }
      }
    }
    int visits = 0;
    while (!stack_.empty()) {
      const NodeId y = stack_.back();
      stack_.pop_back();
      if (seen_[y] == stamp_) continue;
      seen_[y] = stamp_;
      if (++visits > o_.join_search_limit) return false;
      for (NodeId u : g_.users[y]) {
        if (!computed_in_pass(u) || u > last) continue;
        if (in_groups(u, a, b)) return false;
        stack_.push_back(u);
      }
    }
    return true;
  }

  // Whether Inductor may fuse group roots a and b as far as their loops go:
  // the same sum across rows (or none in either), or a sum across rows and
  // a reduction along the rows of the same input that Inductor's mix-order
  // reduction joins (column_reduction.h).
  bool loops_agree(int32_t a, int32_t b) const {
    if (column_shape_[a] == column_shape_[b]) return column_shape_[a].first == 0 || reads_nested(a, b);
    if (column_shape_[a].first != 0 && column_shape_[b].first != 0) return false;
    const auto& column = column_shape_[a].first != 0 ? column_shape_[a] : column_shape_[b];
    const auto& row = column_shape_[a].first != 0 ? row_shape_[b] : row_shape_[a];
    return row.first != 0 && row.second == column.second && row.first * column.first == column.second &&
           mix_order_reducible(row.first, column.first);
  }

  // Whether one of two groups of sums across rows reads nothing from memory
  // that the other does not: a LayerNorm's bias gradient (the sum of dy)
  // and weight gradient (dy times the normalized input), which Inductor
  // sums in one kernel (ViT's generated code). Sums of different blocks
  // that share one buffer and read others of their own stay apart there
  // (ConvNeXt's layer-scale and LayerNorm-weight gradients of a stage all
  // read the stage's output gradient; merged, their kernel ran at the
  // stage's end and held the recomputed GELU outputs, 1.52 GB predicted
  // against 0.92 GB measured at budget 0.3). Off with
  // column_reductions_start_kernels = false, which makes no such groups.
  bool reads_nested(int32_t a, int32_t b) const {
    const auto& ra = column_reads_[a];
    const auto& rb = column_reads_[b];
    const auto& small = ra.size() <= rb.size() ? ra : rb;
    const auto& large = ra.size() <= rb.size() ? rb : ra;
    return std::includes(large.begin(), large.end(), small.begin(), small.end());
  }

  void try_merge(int32_t x, int32_t y) {
    int32_t a = find(x), b = find(y);
    if (a == b || max_read_[a] != max_read_[b] || !loops_agree(a, b)) return;
    if (members(a).size() + members(b).size() > kMaxFusionSize) return;
    if (too_far_apart(a, b)) return;
    if (o_.reductions_end_kernels && (reads_reduction_of(a, b) || reads_reduction_of(b, a))) return;
    if (!acyclic(a, b)) return;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
    if (column_shape_[a].first == 0) column_shape_[a] = column_shape_[b];
    if (row_shape_[a].first == 0) row_shape_[a] = row_shape_[b];
    if (!column_reads_[b].empty()) {  // the group reads what either read
      std::vector<NodeId> both;
      std::set_union(column_reads_[a].begin(), column_reads_[a].end(), column_reads_[b].begin(),
                     column_reads_[b].end(), std::back_inserter(both));
      column_reads_[a] = std::move(both);
      std::vector<NodeId>().swap(column_reads_[b]);
    }
    for (NodeId m : members(b)) root_[m] = a;
    spans_[a] = {std::min(spans_[a].first, spans_[b].first), std::max(spans_[a].second, spans_[b].second)};
    const std::span<const NodeId> from_a = members(a), from_b = members(b);
    std::vector<NodeId> both(from_a.size() + from_b.size());
    std::merge(from_a.begin(), from_a.end(), from_b.begin(), from_b.end(), both.begin());  // graph order
    merged_[a] = std::move(both);
    std::vector<NodeId>().swap(merged_[b]);  // b is no root now: never asked again
  }

  const Graph& g_;
  const FusionGroups& f_;
  const BandwidthOptions& o_;
  const std::vector<uint64_t>& numel_;  // per node
  const Flags& buffers_;                // per node: a buffer whatever the merges
  size_t kernels_;
  std::vector<int32_t> parent_;
  // Per node: find(kernel) of a Fused node, kept current as groups merge (the
  // searches ask it on every edge; union-find walks there were a tenth of
  // the merger); -1 for every other node.
  std::vector<int32_t> root_;
  // Per group root, its nodes in graph order: merged_[k] once k took in
  // another group, else its kernel's list in initial_.
  std::span<const NodeId> members(int32_t k) const {
    const auto& merged = merged_[static_cast<size_t>(k)];
    return merged.empty() ? initial_.of(k) : std::span<const NodeId>(merged);
  }
  KernelLists initial_;
  std::vector<std::vector<NodeId>> merged_;
  std::vector<std::pair<NodeId, NodeId>> spans_;  // per group root: span_of its members
  std::vector<uint64_t> max_read_;
  // Per group root: (outputs, inputs' elements) of its reduction across rows
  // (column_reductions_start_kernels), (0, 0) for none. Inductor fuses such
  // a reduction only with kernels whose loops are the same: another
  // reduction of that shape.
  std::vector<std::pair<uint64_t, uint64_t>> column_shape_;
  std::vector<std::pair<uint64_t, uint64_t>> row_shape_;  // the same for a reduction along rows
  // Per group root with a sum across rows: the buffers it reads (sorted).
  std::vector<std::vector<NodeId>> column_reads_;
  std::vector<NodeId> position_;  // per node: its place in the emitted pass
  std::vector<int> seen_;
  int stamp_ = 0;
  std::vector<NodeId> stack_;
};

}  // namespace

std::vector<int32_t> merge_sibling_kernels(const Graph& g, const FusionGroups& f,
                                           const std::vector<NodeId>& first, const std::vector<uint64_t>& numel,
                                           const std::vector<NodeId>& recomputed, const BandwidthOptions& o,
                                           const Flags& buffers) {
  return SiblingMerger(g, f, first, numel, recomputed, o, buffers).run();
}

}  // namespace pt
