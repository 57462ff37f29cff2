#include "estimate/kernel_arithmetic.h"

#include <algorithm>
#include <string_view>

#include "estimate/inductor_fusible.h"
#include "estimate/online_softmax.h"
#include "estimate/value_numel.h"
#include "prepare/cse_key.h"

namespace pt {

KernelArithmetic::KernelArithmetic(const Graph& g, const FusionGroups& f, const std::vector<uint64_t>& numel,
                                   const Device& d)
    : g_(g), f_(f), numel_(numel), device_(d) {}

double KernelArithmetic::cost(NodeId c) const {
  const std::string_view p = g_[c].packet;
  if (device_.pool_tap_seconds > 0 && is_pooling_gradient(g_, c)) {
    return device_.pool_tap_seconds * static_cast<double>(pooling_gradient_taps(g_, c));
  }
  if (p == "aten.erf" || p == "aten.sin" || p == "aten.cos") return device_.erf_seconds;
  return p == "aten.exp" ? device_.exp_seconds : 0.0;
}

double KernelArithmetic::seconds(std::span<const NodeId> roots, std::span<const NodeId> closure) {
  if (device_.erf_seconds <= 0 && device_.exp_seconds <= 0 && device_.pool_tap_seconds <= 0) return 0;
  if (std::none_of(closure.begin(), closure.end(), [&](NodeId c) { return cost(c) > 0; })) return 0;
  if (kept_as_.empty()) {
    const auto n = static_cast<size_t>(g_.size());
    evals_.assign(n, 0);
    in_closure_.assign(n, 0);
    kept_as_.resize(n);
    for (size_t i = 0; i < n; ++i) kept_as_[i] = static_cast<NodeId>(i);
  }
  for (NodeId c : closure) in_closure_[c] = 1;
  // Evaluations: Inductor inlines a fused value into the loop of each
  // reader, so a broadcast value is computed once per element of that loop,
  // a reduction's input once per element reduced. Rotary embeddings' cos
  // and sin ([T, D]), computed again in each layer's [B, H, T, D] kernels:
  // saving them instead made Qwen2's step 0.57 ms faster (one H100), where
  // counting their own elements predicted no change.
  for (NodeId r : roots) evals_[r] = numel_[r];
  for (NodeId c : closure) {  // readers before what they read
    for (NodeId x : g_[c].inputs) {
      if (x < 0 || !in_closure_[x]) continue;
      const uint64_t e =
          f_.reduction[c] ? scaled(evals_[c], numel_[x], std::max<uint64_t>(numel_[c], 1)) : evals_[c];
      evals_[x] = std::max(evals_[x], e);
    }
  }
  // Value numbering in graph order: a node whose CSE key (cse_key.h, with
  // inputs replaced by their representatives) was seen is that value.
  double seconds = 0;
  seen_.clear();
  for (auto it = closure.rbegin(); it != closure.rend(); ++it) {
    const NodeId c = *it;
    if (cse_key(g_, c, kept_as_, key_)) {
      const auto [pos, fresh] = seen_.emplace(key_, c);
      if (!fresh) {
        kept_as_[c] = pos->second;
        continue;
      }
    }
    const double per_element = cost(c) * (online_softmax_exp(g_, numel_, c) ? 2 : 1);
    seconds += per_element * static_cast<double>(evals_[c]);
  }
  for (NodeId c : closure) kept_as_[c] = c, evals_[c] = 0, in_closure_[c] = 0;
  return seconds;
}

}  // namespace pt
