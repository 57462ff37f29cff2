#include "estimate/online_softmax.h"

namespace pt {

bool online_softmax_exp(const Graph& g, const std::vector<uint64_t>& numel, NodeId c) {
  if (g[c].packet != "aten.exp" || g[c].inputs.size() != 1) return false;
  const Node& sub = g[g[c].inputs[0]];
  if (sub.packet != "aten.sub" || sub.inputs.size() != 2) return false;
  const NodeId x = sub.inputs[0], m = sub.inputs[1];
  if (g[m].packet != "aten.amax" || g[m].inputs.empty() || g[m].inputs[0] != x) return false;
  constexpr uint64_t kPersistentReductionElements = 1024;
  const auto mi = static_cast<size_t>(m), xi = static_cast<size_t>(x);
  return numel[mi] > 0 && numel[xi] / numel[mi] > kPersistentReductionElements;
}

}  // namespace pt
