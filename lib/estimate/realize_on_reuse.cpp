#include "estimate/realize_on_reuse.h"

#include <algorithm>

#include "estimate/inductor_op_count.h"

namespace pt {

namespace {

class Realizer {
 public:
  Realizer(const Graph& g, const NodeOpClasses& ops, const std::vector<uint64_t>& numel, const BandwidthOptions& o,
           FusionGroups& f)
      : g_(g), ops_(ops), numel_(numel), o_(o), f_(f), n_(static_cast<size_t>(g.size())), op_weight_(n_, -1) {}

  void run() {
    realize_reused();
    store_realized_read_through_others();
  }

 private:
  NodeId fused_base(NodeId id) const { return fused_base_of(g_, ops_, f_, id); }

  // The node a read of realize_reused's lists is of (an unrolled
  // reduction's copies are kept as node + copy * n).
  NodeId read_base(NodeId x) const { return static_cast<NodeId>(static_cast<size_t>(x) % n_); }

  // Inductor's thresholds (torch/_inductor/config.py): realize_reads_threshold
  // for a value with several readers, realize_acc_reads_threshold for any,
  // realize_opcount_threshold for the ops of any value's inlined expression.
  static constexpr size_t kReuseReads = 4;
  static constexpr size_t kMaxReads = 8;
  static constexpr size_t kMaxOps = 30;

  // Inductor inlines a pointwise value into each reader unless it realizes
  // it (BandwidthOptions::realize_reused_values and realize_large_expressions
  // say when). Walks the pass in graph order with the buffers each fused
  // value's inlined computation reads (at most kMaxReads + 1 kept) and the
  // nodes that add ops to it (op_weight > 0; at most kMaxOps while it is
  // inlined); a realized value reads only itself downstream, and is stored
  // when a kernel other than its own reads it.
  void realize_reused() {
    // reads[x] = pool[read_at[x], read_at[x] + read_len[x]), the same for
    // ops: one pool, not a vector per node (graphs reach 10^6 nodes).
    std::vector<NodeId> pool, acc, op_pool, op_acc;
    std::vector<size_t> read_at(n_, 0), op_at(n_, 0);
    std::vector<uint8_t> read_len(n_, 0), op_len(n_, 0);
    auto keep_reads = [&](NodeId id, const NodeId* first, size_t count) {
      read_at[id] = pool.size();
      read_len[id] = static_cast<uint8_t>(count);
      pool.insert(pool.end(), first, first + count);
    };
    auto append = [](std::vector<NodeId>& to, const std::vector<NodeId>& from, size_t at, size_t len) {
      to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(at),
                from.begin() + static_cast<std::ptrdiff_t>(at + len));
    };
    auto sort_unique = [](std::vector<NodeId>& v) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    const bool count_ops = o_.realize_large_expressions;
    for (NodeId id = 0; id < g_.size(); ++id) {
      if (f_.role[id] != NodeRole::Fused || f_.reduction[id] || f_.stored[fused_base(id)]) continue;
      acc.clear();
      op_acc.clear();
      for (NodeId x : g_[id].inputs) {
        if (!runs_in_pass(f_, x) || f_.role[x] == NodeRole::Host) continue;
        const bool inlined = f_.role[x] == NodeRole::Fused && !f_.reduction[x] && !f_.stored[fused_base(x)];
        if (inlined) {
          append(acc, pool, read_at[x], read_len[x]);
          if (count_ops) append(op_acc, op_pool, op_at[x], op_len[x]);
        } else {
          acc.push_back(x);
        }
      }
      sort_unique(acc);
      // An unrolled reduction loads what its input reads once per element
      // it sums, each at another index, and Inductor counts each such load
      // as a read (its MemoryDeps differ by index): moe_top2's unrolled sum
      // over the top-2 expert gradients makes the LayerNorm-backward input
      // read 7 buffers, and Inductor realizes it. Copy c of read x is kept
      // as x + c * n; copies of copies may coincide (then counted once).
      if (const uint64_t k = unrolled_extent(g_, numel_, o_, id); k > 1) {
        const size_t reads = acc.size();
        for (uint64_t c = 1; c < k; ++c) {
          for (size_t i = 0; i < reads; ++i) acc.push_back(read_base(acc[i]) + static_cast<NodeId>(c * n_));
        }
        sort_unique(acc);
      }
      size_t ops = 0;
      if (count_ops) {
        if (op_weight(id) > 0) op_acc.push_back(id);
        sort_unique(op_acc);
        ops = acc.size();  // a load each
        for (NodeId x : op_acc) ops += static_cast<size_t>(op_weight(x));
      }
      int users = 0;
      bool read_elsewhere = false;
      for (NodeId u : g_.users[id]) {
        if (!runs_in_pass(f_, u)) continue;
        ++users;
        if (!(f_.role[u] == NodeRole::Fused && f_.kernel[u] == f_.kernel[id])) read_elsewhere = true;
      }
      // realize_hint realizes a long expression only if it reads more than
      // one buffer at a varying index (OpCountResult::nontrivial_read_count:
      // a scalar's load is not counted).
      const bool long_expression =
          ops > kMaxOps &&
          std::count_if(acc.begin(), acc.end(), [&](NodeId x) { return numel_[read_base(x)] > 1; }) > 1;
      const bool realize = acc.size() > kMaxReads || (users > 1 && acc.size() > kReuseReads) || long_expression;
      if (!realize) {
        keep_reads(id, acc.data(), std::min(acc.size(), kMaxReads + 1));
        op_at[id] = op_pool.size();
        op_len[id] = static_cast<uint8_t>(std::min(op_acc.size(), kMaxOps + 1));
        op_pool.insert(op_pool.end(), op_acc.begin(), op_acc.begin() + op_len[id]);
        continue;
      }
      f_.realized[id] = true;
      // Read only inside its own kernel: kept in registers there.
      if (read_elsewhere) f_.stored[fused_base(id)] = true;
      keep_reads(id, &id, 1);
      op_at[id] = op_pool.size();
      op_len[id] = 0;
    }
  }

  // A realized value is a buffer every reader loads, also a kernel that
  // computes one of its readers again (a value of another kernel it
  // inlines): such a value is stored, not only one read directly by another
  // kernel. EfficientNet-B0's backward realizes the float32 BatchNorm output
  // that its SiLU gradient reads twice; Inductor stores it (616 MB on the
  // widest layer) and both the statistics' sums and the input gradient
  // load it, where the model had computed both in one kernel from the
  // convolution output. Walks the pass backwards: `needed` marks a fused
  // value some other kernel computes again or loads.
  void store_realized_read_through_others() {
    std::vector<uint8_t> needed(n_, 0);
    for (NodeId id = g_.size() - 1; id >= 0; --id) {
      if (!runs_in_pass(f_, id) || f_.role[id] != NodeRole::Fused) continue;
      bool other = false;
      for (NodeId u : g_.users[id]) {
        if (!runs_in_pass(f_, u)) continue;
        if (f_.kernel[u] != f_.kernel[id]) {
          other = true;
        } else if (f_.role[u] == NodeRole::Fused && !f_.stored[fused_base(u)] && !f_.realized[u] && needed[u]) {
          other = true;  // u is computed again elsewhere, and reads this
        }
        if (other) break;
      }
      if (!other) continue;
      needed[id] = 1;
      if (f_.realized[id]) f_.stored[fused_base(id)] = true;
    }
  }

  // inductor_op_weight, worked out once per node.
  int op_weight(NodeId id) {
    int8_t& w = op_weight_[static_cast<size_t>(id)];
    if (w < 0) w = static_cast<int8_t>(inductor_op_weight(g_, ops_, id));
    return w;
  }

  const Graph& g_;
  const NodeOpClasses& ops_;
  const std::vector<uint64_t>& numel_;
  const BandwidthOptions& o_;
  FusionGroups& f_;
  size_t n_;
  std::vector<int8_t> op_weight_;  // per node: op_weight, -1 until asked
};

}  // namespace

void realize_on_reuse(const Graph& g, const NodeOpClasses& ops, const std::vector<uint64_t>& numel,
                      const BandwidthOptions& o, FusionGroups& f) {
  Realizer(g, ops, numel, o, f).run();
}

}  // namespace pt
