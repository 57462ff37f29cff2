#include "estimate/value_numel.h"

namespace pt {

std::vector<uint64_t> value_numels(const Graph& g) {
  std::vector<uint64_t> out(static_cast<size_t>(g.size()));
  for (NodeId id = 0; id < g.size(); ++id) out[static_cast<size_t>(id)] = g[id].numel;
  return out;
}

}  // namespace pt
