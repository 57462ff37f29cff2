#include "estimate/scatter_copies.h"

#include <string_view>
#include <unordered_map>

namespace pt {

std::vector<int32_t> scatter_copy_positions(const Graph& g, const std::vector<NodeId>& order, const Flags& is_input,
                                            const std::vector<NodeId>& root, const Flags& stored, const Flags& item) {
  constexpr int32_t kMaxDistance = 64;  // Scheduler.are_long_distant_nodes
  auto holds = [&](NodeId id) { return item[id] || stored.empty() || stored[id]; };
  std::vector<int32_t> at;
  struct Copy {
    int32_t position, buffers;  // the first copy's position, and the buffers allocated before it
  };
  std::unordered_map<NodeId, Copy> first;  // per destination buffer
  int32_t buffers = 0;
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const NodeId id = order[pos];
    const std::string_view p = g[id].packet;
    const bool scatter =
        p == "aten.index_put" || p == "aten.scatter" || p == "aten.scatter_add" || p == "aten.scatter_reduce";
    if (scatter && !is_input[id] && root[id] == id && holds(id) && !g[id].positional_inputs.empty() &&
        root[g[id].positional_inputs[0]] != kNoNode) {
      const NodeId destination = root[g[id].positional_inputs[0]];
      const auto it = first.find(destination);
      if (it != first.end() && buffers - it->second.buffers <= kMaxDistance) {
        if (at.empty()) at.assign(order.size(), -1);
        at[pos] = it->second.position;
      } else {
        first[destination] = {static_cast<int32_t>(pos), buffers};
      }
    }
    if (!is_input[id] && root[id] == id && holds(id)) ++buffers;
  }
  return at;
}

}  // namespace pt
