#include "estimate/pass_cost.h"

#include <algorithm>
#include <span>
#include <utility>

#include "graph/dtype.h"
#include "estimate/attention_rate.h"
#include "estimate/column_reduction.h"
#include "estimate/inductor_layout.h"
#include "estimate/convolution_time.h"
#include "estimate/kernel_flops.h"
#include "estimate/kernel_arithmetic.h"
#include "estimate/nchw_conversions.h"
#include "estimate/value_numel.h"

namespace pt {

namespace {

// Ops that read only the elements their index selects, by overload packet;
// the source is their first positional argument.
constexpr std::string_view kIndexingOps[] = {
    "aten.gather", "aten.index", "aten._unsafe_index", "aten.embedding", "aten.index_select",
};

bool is_indexing(const Node& n) {
  return std::find(std::begin(kIndexingOps), std::end(kIndexingOps), n.packet) != std::end(kIndexingOps);
}

// Convolutions (the overload packets runtime_estimate.h counts FLOPs for),
// which run at Device::conv_efficiency rather than the matmul efficiency.
constexpr std::string_view kConvolutionOps[] = {
    "aten.convolution", "aten._convolution", "aten.cudnn_convolution", "aten.convolution_backward",
};

bool is_convolution(const Node& n) {
  return std::find(std::begin(kConvolutionOps), std::end(kConvolutionOps), n.packet) != std::end(kConvolutionOps);
}

class PassCoster {
 public:
  PassCoster(const Graph& g, const FusionGroups& f, const NodeOpClasses& ops,
             const std::vector<uint64_t>& numel, const Device& d, const BandwidthOptions& o)
      : g_(g), f_(f), ops_(ops), numel_(numel), device_(d), o_(o), n_(static_cast<size_t>(g.size())),
        arithmetic_(g, f, numel, d) {
    demand_.assign(n_, 0);
    mark_.assign(n_, 0);
    kernel_loads_.resize(static_cast<size_t>(f.kernel_count()));
  }

  PassEstimate run(PassDetail detail) {
    PassEstimate out;
    const bool keep = detail == PassDetail::Kernels;
    // At most one estimate per kernel: reserved, not grown by doubling (at
    // 10^6 nodes the backward's 148,000 were moved through fresh pages).
    if (keep) out.kernels.reserve(static_cast<size_t>(f_.kernel_count()));
    std::vector<Transfer> one_kernel;  // a kernel's transfers, when they are not kept
    for (int32_t k = 0; k < f_.kernel_count(); ++k) {
      std::vector<Transfer>& transfers = keep ? out.transfers : one_kernel;
      if (!keep) transfers.clear();
      const size_t at = transfers.size();
      KernelEstimate ke = cost_kernel(k, transfers);
      if ((ke.store_count == 0 && !ke.fused && ke.load_count == 0) ||
          (ke.fused && ke.store_count == 0)) {  // fused: everything it computes is computed elsewhere
        transfers.resize(at);
        continue;
      }
      out.bytes_loaded += ke.bytes_loaded;
      out.bytes_stored += ke.bytes_stored;
      out.bytes_cached += ke.bytes_cached;
      out.flops += ke.flops;
      out.seconds += ke.seconds;
      out.conversion_seconds += ke.conversion_seconds;
      ++out.kernel_count;
      if (keep) out.kernels.push_back(std::move(ke));
    }
    return out;
  }

 private:
  enum Mark : uint8_t { kNone, kClosure, kLoad };

  bool in_pass(NodeId id) const { return runs_in_pass(f_, id); }

  // Elements of `x` that consumer `c` needs when `d` elements of `c` are needed.
  uint64_t need(NodeId x, NodeId c, uint64_t d) const {
    const uint64_t nx = numel_[x];
    const uint64_t nc = numel_[c];
    if (d == 0 || nx == 0) return 0;
    const Node& cn = g_[c];
    const bool index_source = o_.indexing_reads_selection && is_indexing(cn) && !cn.positional_inputs.empty() &&
                              cn.positional_inputs[0] == x;
    if (index_source || ops_.is_view(c) || nx <= nc) return std::min(nx, d);
    return std::min(nx, scaled(d, nx, nc));
  }

  // Where an input of kernel k's computation comes from.
  Mark classify_input(NodeId x, int32_t k) const {
    switch (f_.role[x]) {
      case NodeRole::Alias: return kClosure;
      case NodeRole::Host:
      case NodeRole::Absent: return kNone;
      case NodeRole::Fused:
        if (f_.kernel[x] == k) return kClosure;
        return f_.stored[x] ? kLoad : kClosure;  // not stored: computed again here
      default: return kLoad;
    }
  }

  uint64_t bytes_of(NodeId id, uint64_t elements) const {
    return scaled(elements, g_[id].size_bytes, numel_[id] == 0 ? 1 : numel_[id]);
  }

  // What a stored value writes: a tuple of a non-fusible op writes the items
  // that are read (its getitems), else its whole value.
  uint64_t store_bytes(NodeId id) const {
    if (g_[id].value_kind != ValueKind::Tuple) return g_[id].size_bytes;
    uint64_t total = 0;
    bool any = false;
    for (NodeId u : g_.users[id]) {
      if (in_pass(u) && g_[u].packet == "operator.getitem") {
        total += g_[u].size_bytes;
        any = true;
      }
    }
    return any ? total : g_[id].size_bytes;
  }

  // Kernel k's estimate; its loads and stores appended to `transfers`.
  KernelEstimate cost_kernel(int32_t k, std::vector<Transfer>& transfers) {
    const std::span<const NodeId> members = f_.members(k);
    KernelEstimate ke;
    ke.fused = !members.empty() && f_.role[members.front()] == NodeRole::Fused;  // empty: no roots below
    // Scratch lists reused from kernel to kernel (one allocation each, not
    // four per kernel).
    auto& roots = roots_;
    auto& closure = closure_;
    auto& loads = loads_;
    auto& stack = stack_;
    roots.clear();
    for (NodeId m : members) {
      if (f_.stored[m] || !ke.fused) {
        // Its inputs are read below; at 10^6 nodes the 128 MB Node array
        // misses the cache on that load (two fifths of this function's samples).
        __builtin_prefetch(&g_[m].inputs);
        roots.push_back(m);
      }
    }
    if (roots.empty()) return ke;
    ke.first = roots.front();

    // The computation: roots, then backward through members, aliases and
    // fused values computed again; loads where it reaches memory.
    closure.clear();
    loads.clear();
    stack.assign(roots.begin(), roots.end());
    for (NodeId r : roots) mark_[r] = kClosure;
    while (!stack.empty()) {
      const NodeId c = stack.back();
      stack.pop_back();
      closure.push_back(c);
      for (NodeId x : g_[c].inputs) {
        if (!in_pass(x) || mark_[x] != kNone) continue;
        const Mark m = classify_input(x, k);
        if (m == kNone) continue;
        mark_[x] = m;
        if (m == kClosure) {
          __builtin_prefetch(&g_[x].inputs);  // popped soon; see the roots
          stack.push_back(x);
        } else {
          loads.push_back(x);
        }
      }
    }
    std::sort(closure.begin(), closure.end(), std::greater<>());
    for (NodeId r : roots) demand_[r] = numel_[r];
    for (NodeId c : closure) {
      for (NodeId x : g_[c].inputs) {
        if (in_pass(x) && mark_[x] != kNone) demand_[x] = std::max(demand_[x], need(x, c, demand_[c]));
      }
    }
    std::sort(loads.begin(), loads.end());
    const bool rereads = ke.fused && o_.cached_row_rereads && device_.cached_row_bytes > 0;
    if (rereads) reductions_read(k);
    ke.transfers_at = static_cast<int32_t>(transfers.size());
    for (NodeId x : loads) {
      const uint64_t b = bytes_of(x, demand_[x]);
      if (b > 0) {
        transfers.push_back({x, b});
        ++ke.load_count;
      }
      ke.bytes_loaded += b;
      if (rereads && read_again_after_reduction(x)) ke.bytes_cached += b;
    }
    // Kept for later kernels only where a reduction's result leaves this one.
    if (rereads && holds_reduction(members)) {
      kernel_loads_[k].assign(loads.begin(), loads.end());
    }
    for (NodeId r : roots) {
      if (!f_.stored[r]) continue;
      const uint64_t b = store_bytes(r);
      transfers.push_back({r, b});
      ++ke.store_count;
      ke.bytes_stored += b;
    }
    // Every op with a FLOP formula, not only PyTorch's compute-intensive set:
    // that set (a partitioning rule) lacks cuDNN attention, which GPT-2 and
    // ViT run, and the backward's recomputed attention cost its bytes only
    // (12 us of 46 per call on GPT-2, docs/bandwidth_model.md,
    // fifth pass).
    if (!ke.fused) ke.flops = kernel_flops(g_, roots.front());  // 0: memory time only
    const bool derate = o_.apply_device_efficiency;
    const double column = derate && ke.fused ? column_reduction_fraction(members) : 1.0;
    const double mem_s = static_cast<double>(ke.bytes_loaded - ke.bytes_cached + ke.bytes_stored) /
                         (device_.bytes_per_second * (derate ? device_.memory_efficiency : 1.0) * column);
    double flop_s = 0;  // no FLOPs: memory time only, and no dtype read from the message
    bool matmul = false;  // a cuBLAS matmul (its own latency, Device::matmul_latency_seconds)
    if (ke.flops > 0) {
      // float32 matmuls run on TF32 tensor cores, at half the bf16 rate.
      // Fused attention runs slower than a matmul of its FLOPs, and its rate
      // depends on the shape: the device's measured fit where it has one
      // (attention_rate.h; off with the other measured efficiencies).
      const auto attention = derate ? attention_seconds(g_, roots.front(), ke.flops, device_.attention) : std::nullopt;
      if (attention) {
        flop_s = *attention;
      } else {
        static const uint8_t kFloat32 = dtype_code("float32");  // the name as written, not "torch.float32"
        const Node& op = g_[roots.front()];
        // A tuple (convolution_backward's gradients) has no dtype of its
        // own: its first tensor input's tells. Read as not float32, ResNet-50's
        // fp32 weight and input gradients ran at the bf16 rate, 2.7 ms of a
        // 22.6 ms step short.
        const NodeId typed = op.dtype == 0 && !op.positional_inputs.empty() ? op.positional_inputs[0] : roots.front();
        const bool fp32 = g_[typed].dtype == kFloat32;
        const double peak = fp32 ? device_.fp32_flops_per_second : device_.flops_per_second;
        matmul = !is_convolution(op);
        const double rate = peak * (derate ? device_.compute_rate_fraction(!matmul, fp32) : 1.0);
        double misaligned = 1;
        flop_s = !matmul ? convolution_seconds(g_, roots.front(), ke.flops, rate, device_, o_, f_.channels_last,
                                               &misaligned)
                         : static_cast<double>(ke.flops) / rate;
        // What a misaligned NCHW GEMM adds is the NCHW layout's cost, as
        // the conversions below are: the report names both.
        ke.conversion_seconds = std::max(mem_s, flop_s) - std::max(mem_s, flop_s / misaligned);
      }
    }
    ke.seconds = std::max(mem_s, flop_s);
    if (derate) ke.seconds += matmul ? device_.matmul_latency_seconds : device_.kernel_latency_seconds;
    if (derate && ke.fused && o_.split_reductions && holds_split_reduction(members)) {
      ke.seconds += 2 * device_.kernel_latency_seconds;
    }
    if (derate && ke.fused && o_.recomputed_reductions_read_cold && holds_recomputed_column_reduction(members)) {
      ke.seconds += device_.column_reduction.recomputed_seconds;
    }
    if (!ke.fused && derate) ke.seconds += atomic_seconds(roots.front());
    if (!ke.fused) {
      const double conversions = nchw_conversion_seconds(g_, roots.front(), f_.channels_last, device_, o_);
      ke.conversion_seconds += conversions;
      ke.seconds += conversions;
    }
    if (ke.fused && o_.fused_compute_floor) ke.seconds = std::max(ke.seconds, arithmetic_.seconds(roots, closure));

    for (NodeId c : closure) mark_[c] = kNone, demand_[c] = 0;
    for (NodeId x : loads) mark_[x] = kNone, demand_[x] = 0;
    return ke;
  }

  // ATen's index_add(self, dim, index, source) copies self, then adds each
  // source element into it with an atomic: time the bytes do not show
  // (Device::atomic_add_seconds).
  double atomic_seconds(NodeId op) const {
    const Node& n = g_[op];
    if (device_.atomic_add_seconds <= 0 || n.packet != "aten.index_add" || n.positional_inputs.empty()) return 0;
    return device_.atomic_add_seconds * static_cast<double>(numel_[n.positional_inputs.back()]);
  }

  // The fraction of the copy bandwidth the kernel's shortest reduction
  // across rows allows (Device::column_reduction, column_reduction.h); 1
  // without one.
  double column_reduction_fraction(std::span<const NodeId> members) const {
    const double overhead = device_.column_reduction.row_overhead_bytes;
    if (overhead <= 0) return 1;
    double fraction = 1;
    for (NodeId m : members) {
      if (!f_.reduction[m]) continue;
      const auto row = static_cast<double>(column_reduction_row_bytes(g_, m, f_.channels_last));
      if (row > 0) fraction = std::min(fraction, row / (row + overhead));
    }
    return fraction;
  }

  // Whether the kernel holds a reduction Inductor runs as two kernels
  // (BandwidthOptions::split_reductions).
  bool holds_split_reduction(std::span<const NodeId> members) const {
    return std::any_of(members.begin(), members.end(), [&](NodeId m) {
      return f_.reduction[m] && is_split_reduction(g_, m, device_.multiprocessors, f_.channels_last);
    });
  }

  // Whether the kernel holds a reduction across rows that this pass
  // recomputes (BandwidthOptions::recomputed_reductions_read_cold).
  bool holds_recomputed_column_reduction(std::span<const NodeId> members) const {
    if (f_.recomputed.empty()) return false;
    return std::any_of(members.begin(), members.end(), [&](NodeId m) {
      return f_.reduction[m] && f_.recomputed[m] && column_reduction_row_bytes(g_, m, f_.channels_last) > 0;
    });
  }

  bool holds_reduction(std::span<const NodeId> members) const {
    return std::any_of(members.begin(), members.end(), [&](NodeId m) { return f_.reduction[m]; });
  }

  // The reduction results computed by other kernels of this pass that kernel
  // k loads (cached_row_rereads), into reductions_.
  void reductions_read(int32_t k) {
    reductions_.clear();
    for (NodeId x : loads_) {
      if (f_.role[x] == NodeRole::Fused && f_.reduction[x] && f_.kernel[x] != k) reductions_.push_back(x);
    }
  }

  // Whether load x re-reads the rows a reduction this kernel reads the
  // result of has just read: that reduction's kernel loaded x, and x's rows
  // (its bytes over the reduction's outputs) fit Device::cached_row_bytes.
  bool read_again_after_reduction(NodeId x) const {
    for (NodeId r : reductions_) {
      const auto& before = kernel_loads_[static_cast<size_t>(f_.kernel[r])];
      if (!std::binary_search(before.begin(), before.end(), x) || numel_[r] == 0) continue;
      if (g_[x].size_bytes / numel_[r] <= device_.cached_row_bytes) return true;
    }
    return false;
  }

  const Graph& g_;
  const FusionGroups& f_;
  const NodeOpClasses& ops_;
  const std::vector<uint64_t>& numel_;  // per node (read only for nodes of the pass)
  const Device& device_;
  const BandwidthOptions& o_;
  size_t n_;
  std::vector<uint64_t> demand_;
  std::vector<uint8_t> mark_;
  std::vector<NodeId> roots_, closure_, loads_, stack_;  // cost_kernel's scratch
  std::vector<std::vector<NodeId>> kernel_loads_;        // per fused kernel costed so far, sorted
  std::vector<NodeId> reductions_;                       // read_again_after_reduction's reductions
  KernelArithmetic arithmetic_;
};

}  // namespace

PassEstimate cost_kernels(const Graph& g, const FusionGroups& f, const NodeOpClasses& ops,
                          const std::vector<uint64_t>& numel, const Device& device, const BandwidthOptions& o,
                          PassDetail detail) {
  return PassCoster(g, f, ops, numel, device, o).run(detail);
}

void move_masks(FusionGroups& from, PassEstimate& to) {
  to.stored = std::move(from.stored);
  to.realized = std::move(from.realized);
  to.kernel = std::move(from.kernel);
}

PassEstimate cost_pass(const Graph& g, const Subgraph& pass, const std::vector<NodeId>& outputs,
                       const NodeOpClasses& ops, const std::vector<uint64_t>& numel, const Flags& channels_last,
                       const Device& device, const BandwidthOptions& o, const std::vector<NodeId>& recomputed,
                       PassDetail detail) {
  FusionGroups f = group_kernels(g, pass, outputs, ops, numel, channels_last, o, recomputed);
  PassEstimate out = cost_kernels(g, f, ops, numel, device, o, detail);
  move_masks(f, out);
  return out;
}

PassEstimate estimate_pass(const Graph& g, const Subgraph& pass, const std::vector<NodeId>& outputs,
                           const OpClasses& ops, const Device& device, const BandwidthOptions& o,
                           const std::vector<NodeId>& recomputed) {
  return cost_pass(g, pass, outputs, NodeOpClasses(g, ops), value_numels(g), channels_last_values(g, o), device, o,
                   recomputed);
}

}  // namespace pt
