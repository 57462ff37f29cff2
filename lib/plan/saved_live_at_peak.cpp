#include "plan/saved_live_at_peak.h"

#include <algorithm>

#include "estimate/backward_order.h"

namespace pt {

std::vector<NodeId> saved_live_at_peak(const Graph& g, const Extraction& e, std::string_view peak_at,
                                       std::string_view peak_pass, bool from_first_tangent_reader) {
  const NodeId at = g.find(peak_at);
  std::vector<NodeId> live;
  if (at == kNoNode) return live;
  if (peak_pass == "forward") {
    for (NodeId id : e.saved_values) {
      if (id <= at && g[id].op != OpKind::Placeholder) live.push_back(id);
    }
  } else {
    std::vector<NodeId> order = e.bw_inputs();
    Flags bw_input(g.size(), false);
    for (NodeId id : order) bw_input[id] = true;
    append_backward_order(g, e, bw_input, from_first_tangent_reader, order);
    std::vector<int64_t> position(g.size(), -1);
    for (size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int64_t>(i);
    const int64_t now = position[at];
    for (NodeId id : e.saved_values) {
      if (g[id].op == OpKind::Placeholder) continue;
      for (NodeId u : g.users[id]) {
        if (position[u] >= now && e.backward.keep[u] && !e.backward.is_input[u]) {
          live.push_back(id);
          break;
        }
      }
    }
  }
  std::stable_sort(live.begin(), live.end(), [&](NodeId a, NodeId b) { return g[a].size_bytes > g[b].size_bytes; });
  return live;
}

}  // namespace pt
