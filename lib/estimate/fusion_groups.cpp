#include "estimate/fusion_groups.h"

#include <algorithm>

#include "estimate/column_reduction.h"
#include "estimate/scatter_copies.h"
#include "estimate/inductor_fusible.h"
#include "estimate/realize_on_reuse.h"
#include "estimate/sibling_fusion.h"

namespace pt {

namespace {

// The longest row Inductor reduces in registers, a persistent reduction
// (row_reduction_readers_join).
constexpr uint64_t kPersistentRowElements = 1024;

bool is_tensor_valued(const Node& n) { return n.value_kind == ValueKind::Tensor || n.value_kind == ValueKind::Tuple; }

class Grouper {
 public:
  Grouper(const Graph& g, const Subgraph& pass, const NodeOpClasses& ops, const std::vector<uint64_t>& numel,
          const Flags& channels_last, const BandwidthOptions& o, const std::vector<NodeId>& recomputed)
      : g_(g), pass_(pass), ops_(ops), numel_(numel), o_(o), recomputed_(recomputed), n_(static_cast<size_t>(g.size())) {
    f_.role.assign(n_, NodeRole::Absent);
    f_.kernel.assign(n_, -1);
    f_.reduction.assign(n_, false);
    f_.stored.assign(n_, false);
    f_.realized.assign(n_, false);
    f_.channels_last = channels_last;
    if (!recomputed.empty()) {
      f_.recomputed.assign(n_, false);
      for (NodeId id : recomputed) f_.recomputed[static_cast<size_t>(id)] = true;
    }
    forced_.assign(n_, false);
    seen_.assign(n_, 0);
    // The output node is always the last node (validate.cpp).
    runs_.assign(n_, 0);
    for (NodeId id = 0; id < g.output_node(); ++id) runs_[id] = pass.keep[id];
  }

  FusionGroups run(const std::vector<NodeId>& outputs) {
    drop_dead(outputs);
    for (NodeId id = 0; id < g_.size(); ++id) {
      if (in_pass(id)) assign(id);
    }
    Flags is_output(n_, false);
    for (NodeId id : outputs) {
      if (id != kNoNode && in_pass(id)) is_output[id] = true;
    }
    if (o_.merge_sibling_kernels) {
      renumber(merge_sibling_kernels(g_, f_, first_, numel_, recomputed_, o_, buffers_before_merging(is_output)));
    }
    decide_stores(is_output);
    if (o_.realize_reused_values) realize_on_reuse(g_, ops_, numel_, o_, f_);
    demote_stored_views();
    f_.by_kernel = list_by_kernel(f_.kernel, first_.size());
    return std::move(f_);
  }

 private:
  // The fused values that are buffers of their own whatever the merges:
  // stored (outputs, read by a non-fusible op, reductions) or realized by
  // Inductor's lowering, as the grouping before merging has them. The
  // sibling merger's sums across rows load these rather than compute them
  // again (sibling_fusion.h).
  Flags buffers_before_merging(const Flags& is_output) {
    const Flags stored = f_.stored;
    const Flags realized = f_.realized;
    decide_stores(is_output);
    if (o_.realize_reused_values) realize_on_reuse(g_, ops_, numel_, o_, f_);
    Flags buffers(n_, false);
    for (size_t i = 0; i < n_; ++i) buffers[i] = f_.stored[i] || f_.realized[i];
    f_.stored = stored;
    f_.realized = realized;
    return buffers;
  }

  // Kernel k now runs as kernel to[k].
  void renumber(const std::vector<int32_t>& to) {
    std::vector<NodeId> first;
    for (size_t k = 0; k < first_.size(); ++k) {
      if (static_cast<size_t>(to[k]) == first.size()) first.push_back(first_[k]);
    }
    for (int32_t& k : f_.kernel) {
      if (k >= 0) k = to[k];
    }
    first_ = std::move(first);
  }

  // Nodes of the pass that nothing it returns reads, and that mutate
  // nothing, do not run: Inductor removes them (dead-code elimination on the
  // graph it lowers). The extracted backward keeps every node whose inputs it
  // has, so a forward op whose results are all saved appears there unread
  // (GPT-2's cuDNN attention: its four getitems are saved, yet the model
  // charged the backward 12 attention calls that Inductor never runs).
  void drop_dead(const std::vector<NodeId>& outputs) {
    std::vector<uint8_t> live(n_, 0);
    for (NodeId id : outputs) {
      if (id != kNoNode && in_pass(id)) live[id] = 1;
    }
    for (NodeId id = g_.size() - 1; id >= 0; --id) {
      if (!in_pass(id)) continue;
      if (!live[id] && !g_[id].is_mutable) {  // seeded ops are impure to FX, yet dropped (validate.cpp)
        runs_[id] = 0;
        continue;
      }
      if (pass_.is_input[id]) continue;  // loaded: what it was computed from is not needed here
      for (NodeId x : g_[id].inputs) {
        if (x >= 0) live[x] = 1;
      }
    }
  }

  // Kept by the pass, read by what it returns, and not the output node.
  bool in_pass(NodeId id) const { return id >= 0 && runs_[id]; }

  bool in_memory(NodeId id) const {
    const NodeRole r = f_.role[id];
    return r == NodeRole::Memory || r == NodeRole::Alias || r == NodeRole::Host || r == NodeRole::OwnKernel ||
           r == NodeRole::Absent || (r == NodeRole::Fused && f_.reduction[id]);
  }

  // The fused node of this pass whose tuple getitem `id` takes (var_mean
  // for its mean), else kNoNode.
  NodeId item_of_fused(NodeId id) const {
    if (g_[id].packet != "operator.getitem") return kNoNode;
    const NodeId base = view_base(g_[id]);
    return base != kNoNode && in_pass(base) && f_.role[base] == NodeRole::Fused ? base : kNoNode;
  }

  // Whether reduction `id` ends its kernel for its readers.
  bool ends_kernel(NodeId id) const {
    if (!o_.reductions_end_kernels) return false;
    if (!o_.row_reduction_readers_join) return true;
    const uint64_t length = row_reduction_length(g_, id, f_.channels_last);
    return length == 0 || length > kPersistentRowElements;
  }

  bool is_member(NodeId id, int32_t k) const { return f_.role[id] == NodeRole::Fused && f_.kernel[id] == k; }

  int32_t new_kernel(NodeId id) {
    first_.push_back(id);
    return static_cast<int32_t>(first_.size() - 1);
  }

  void assign(NodeId id) {
    const Node& n = g_[id];
    NodeRole& role = f_.role[id];
    if (pass_.is_input[id] || n.op == OpKind::Placeholder || n.op == OpKind::GetAttr) {
      role = NodeRole::Memory;
    } else if (!is_tensor_valued(n)) {
      role = NodeRole::Host;
    } else if (n.packet == "operator.getitem" || ops_.is_view(id)) {
      const NodeId base = view_base(n);
      if (base == kNoNode || in_memory(base)) {
        // A getitem of a stored tuple is its own stored tensor; a view of
        // something in memory is that memory.
        role = n.packet == "operator.getitem" ? NodeRole::Memory : NodeRole::Alias;
      } else {
        join_or_start(id);
      }
    } else if (ops_.is_fusible_op(id) || (o_.pointwise_tag_fuses && tagged_pointwise(g_, id)) ||
               (o_.slice_scatters_fuse && is_slice_scatter(g_, id)) ||
               (o_.pooling_gradients_fuse && is_pooling_gradient(g_, id)) ||
               (o_.pad_is_pointwise && n.packet == "aten.constant_pad_nd" && !feeds_own_kernel(id)) ||
               (o_.fuse_input_copies && copies_into_input(g_, id))) {
      join_or_start(id);
      f_.reduction[id] = reduces(id);
    } else {
      role = NodeRole::OwnKernel;
      f_.kernel[id] = new_kernel(id);
    }
  }

  // Whether a non-fusible op (a matmul) reads `id`, directly or via views:
  // such a pad (Inductor's pad_mm operand) is a kernel of its own, its loop
  // the padded size (GPT-2's padded loss gradient, in Inductor's generated code). Fused into the
  // loss kernel, GPT-2's two 0.82 GB pads were allocated with its outputs.
  // Off with pad_is_pointwise=false (then every pad is a kernel of its own).
  bool feeds_own_kernel(NodeId id) const {
    // Views of views, up to 8 deep and 256 in all (each visited once: a
    // recursion over every path was exponential in the depth).
    std::vector<std::pair<NodeId, int>> work{{id, 0}};
    std::vector<NodeId> seen{id};
    while (!work.empty()) {
      const auto [x, depth] = work.back();
      work.pop_back();
      for (NodeId u : g_.users[x]) {
        if (!in_pass(u)) continue;
        if (ops_.is_view(u) || g_[u].packet == "operator.getitem") {
          if (depth < 8 && seen.size() < 256 && std::find(seen.begin(), seen.end(), u) == seen.end()) {
            seen.push_back(u);
            work.push_back({u, depth + 1});
          }
        } else if (!ops_.is_fusible_op(u)) {
          return true;
        }
      }
    }
    return false;
  }

  // Whether `id` is a reduction to the kernels: tagged one, unless Inductor
  // unrolls it into a pointwise op (unroll_small_reductions: fewer than
  // config.unroll_reductions_threshold = 8 elements per output; a size
  // unknown here keeps the tag).
  bool reduces(NodeId id) const { return g_[id].reduction_tag && unrolled_extent(g_, numel_, o_, id) == 0; }

  // A fusible node joins the kernel of its first fused producer it can join.
  void join_or_start(NodeId id) {
    f_.role[id] = NodeRole::Fused;
    int32_t chosen = -1;
    tried_.clear();
    const bool alone = o_.column_reductions_start_kernels && reduces(id) &&
                       column_reduction_row_bytes(g_, id, f_.channels_last) > 0;
    for (NodeId x : alone ? std::span<const NodeId>() : std::span<const NodeId>(g_[id].inputs)) {
      if (!in_pass(x)) continue;
      // A statistic of a fused reduction (var_mean's mean) leads to its kernel.
      if (const NodeId base = item_of_fused(x); base != kNoNode) x = base;
      if (f_.role[x] != NodeRole::Fused) continue;
      const int32_t k = f_.kernel[x];
      if (std::find(tried_.begin(), tried_.end(), k) != tried_.end()) continue;
      tried_.push_back(k);
      if (can_join(id, k)) {
        chosen = k;
        break;
      }
    }
    if (chosen < 0) chosen = new_kernel(id);
    f_.kernel[id] = chosen;
    if (!o_.recompute_fused_inputs) {
      // Values of other kernels are stored there and loaded here.
      for (NodeId x : g_[id].inputs) {
        if (in_pass(x) && f_.role[x] == NodeRole::Fused && f_.kernel[x] != chosen) forced_[x] = true;
      }
    }
  }

  // Whether `id` may join kernel k: it must not read k's reduction result
  // (with reductions_end_kernels) and must not depend on a member of k
  // through a node outside k (the kernel would have to run before and after
  // that node). Nodes before k's first member cannot depend on k, which
  // bounds the search.
  bool can_join(NodeId id, int32_t k) {
    const NodeId first = first_[k];
    ++stamp_;
    stack_.clear();
    for (NodeId x : g_[id].inputs) {
      if (!in_pass(x)) continue;
      if (is_member(x, k)) {
        if (f_.reduction[x] && ends_kernel(x)) return false;
        continue;  // read in registers
      }
      if (const NodeId base = item_of_fused(x); base != kNoNode && is_member(base, k)) {
        if (ends_kernel(base)) return false;
        continue;  // a statistic of k's reduction (var_mean's mean), in registers
      }
      stack_.push_back(x);
    }
    int visits = 0;
    while (!stack_.empty()) {
      const NodeId y = stack_.back();
      stack_.pop_back();
      if (y < first || seen_[y] == stamp_) continue;
      seen_[y] = stamp_;
      if (++visits > o_.join_search_limit) return false;
      if (is_member(y, k)) return false;
      for (NodeId z : g_[y].inputs) {
        if (in_pass(z) && z >= first) stack_.push_back(z);
      }
    }
    return true;
  }

  bool has_user_in_pass(NodeId id) const {
    return std::any_of(g_.users[id].begin(), g_.users[id].end(), [&](NodeId u) { return in_pass(u); });
  }

  // Whether `id` is a value computed from no tensor (a constant fill:
  // aten.full, zeros) that the scatter `reader` copies (fills_at_readers:
  // the copy is the fill, written in the scatter's own buffer; another
  // non-fusible reader, an ATen fallback such as index_add, reads one
  // stored fill).
  bool fill_copied_by(NodeId id, NodeId reader) const {
    return o_.fills_at_readers && scatter_copies_fill(g_, id, reader);
  }

  // A value is stored when it leaves its kernel: a graph output (or saved),
  // read by a non-fusible kernel (but a fill a scatter copies, see
  // fill_copied_by), a reduction anyone reads (the reduction ends
  // its kernel), or forced by recompute_fused_inputs = false. Storing a view
  // of a fused value stores its base.
  void decide_stores(const Flags& is_output) {
    for (NodeId id = 0; id < g_.size(); ++id) {
      const NodeRole r = f_.role[id];
      if (r == NodeRole::OwnKernel) {
        f_.stored[id] = is_output[id] || has_user_in_pass(id) || g_[id].is_mutable;
        continue;
      }
      if (r != NodeRole::Fused) continue;
      bool store = is_output[id] || forced_[id] || (f_.reduction[id] && has_user_in_pass(id));
      for (NodeId u : g_.users[id]) {
        if (in_pass(u) && f_.role[u] == NodeRole::OwnKernel && !fill_copied_by(id, u)) store = true;
      }
      if (store) f_.stored[fused_base(id)] = true;
    }
  }

  NodeId fused_base(NodeId id) const { return fused_base_of(g_, ops_, f_, id); }

  // A fused view of a stored value is that stored memory: readers in other
  // kernels load the base instead of computing the view again.
  void demote_stored_views() {
    for (NodeId id = 0; id < g_.size(); ++id) {
      if (f_.role[id] != NodeRole::Fused || !ops_.is_view(id)) continue;
      const NodeId base = fused_base(id);
      if (base != id && f_.stored[base]) {
        f_.role[id] = NodeRole::Alias;
        f_.kernel[id] = -1;
      }
    }
  }

  const Graph& g_;
  const Subgraph& pass_;
  const NodeOpClasses& ops_;
  const std::vector<uint64_t>& numel_;  // per node
  const BandwidthOptions& o_;
  const std::vector<NodeId>& recomputed_;
  size_t n_;
  FusionGroups f_;
  std::vector<NodeId> first_;  // per kernel: its first member
  Flags forced_;
  std::vector<uint8_t> runs_;  // per node: in_pass, one byte each (asked on every edge)
  std::vector<int> seen_;
  int stamp_ = 0;
  std::vector<NodeId> stack_;
  std::vector<int32_t> tried_;
};

}  // namespace

KernelLists list_by_kernel(const std::vector<int32_t>& kernel_of, size_t kernels) {
  KernelLists out;
  out.start.assign(kernels + 1, 0);
  for (int32_t k : kernel_of) {
    if (k >= 0) ++out.start[static_cast<size_t>(k) + 1];
  }
  for (size_t k = 1; k <= kernels; ++k) out.start[k] += out.start[k - 1];
  out.list.resize(static_cast<size_t>(out.start.back()));
  std::vector<int32_t> next(out.start.begin(), out.start.end() - 1);
  for (size_t id = 0; id < kernel_of.size(); ++id) {
    const int32_t k = kernel_of[id];
    if (k >= 0) out.list[static_cast<size_t>(next[static_cast<size_t>(k)]++)] = static_cast<NodeId>(id);
  }
  return out;
}

uint64_t unrolled_extent(const Graph& g, const std::vector<uint64_t>& numel, const BandwidthOptions& o, NodeId id) {
  const Node& n = g[id];
  if (!n.reduction_tag || !o.unroll_small_reductions || !n.first_arg_is_node) return 0;
  const uint64_t in = numel[n.positional_inputs[0]], out = numel[id];
  if (in == 0 || out == 0 || in / out >= kUnrollReductionsThreshold) return 0;
  return in / out;
}

NodeId fused_base_of(const Graph& g, const NodeOpClasses& ops, const FusionGroups& f, NodeId id) {
  while (!f.reduction[id]) {
    NodeId base = kNoNode;
    if (ops.is_view(id)) {
      base = view_base(g[id]);
    } else if (g[id].packet == "operator.getitem" && !g[id].positional_inputs.empty() &&
               ops.is_view(g[id].positional_inputs[0])) {
      base = view_base(g[g[id].positional_inputs[0]]);
    }
    if (base == kNoNode || f.role[base] != NodeRole::Fused) break;
    id = base;
  }
  return id;
}

NodeId view_base(const Node& n) {
  if (!n.positional_inputs.empty()) return n.positional_inputs[0];
  return n.inputs.empty() ? kNoNode : n.inputs[0];
}

FusionGroups group_kernels(const Graph& g, const Subgraph& pass, const std::vector<NodeId>& outputs,
                           const NodeOpClasses& ops, const std::vector<uint64_t>& numel, const Flags& channels_last,
                           const BandwidthOptions& o, const std::vector<NodeId>& recomputed) {
  return Grouper(g, pass, ops, numel, channels_last, o, recomputed).run(outputs);
}

}  // namespace pt
