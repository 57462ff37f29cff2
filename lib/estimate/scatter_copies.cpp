#include "estimate/scatter_copies.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace pt {

bool is_copying_scatter(const Node& n) {
  const std::string_view p = n.packet;
  return p == "aten.index_put" || p == "aten.scatter" || p == "aten.scatter_add" || p == "aten.scatter_reduce";
}

bool is_fill(const Graph& g, NodeId id) {
  const Node& n = g[id];
  return n.op == OpKind::CallFunction && std::all_of(n.inputs.begin(), n.inputs.end(), [&](NodeId x) {
           return g[x].size_bytes == 0;
         });
}

bool scatter_copies_fill(const Graph& g, NodeId fill, NodeId reader) {
  const Node& r = g[reader];
  return is_copying_scatter(r) && !r.positional_inputs.empty() && r.positional_inputs[0] == fill && is_fill(g, fill);
}

void run_fills_at_readers(const Graph& g, const Flags& is_input, std::vector<NodeId>& order) {
  std::vector<int32_t> position(static_cast<size_t>(g.size()), -1);
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int32_t>(i);
  std::vector<NodeId> at;  // per position: the fill to run just before it
  Flags moved;
  for (NodeId id : order) {
    if (is_input[id] || !is_fill(g, id)) continue;
    int32_t first = -1;
    bool copied = false;
    for (NodeId u : g.users[id]) {
      const int32_t p = position[u];
      if (p < 0) continue;
      if (scatter_copies_fill(g, id, u)) {
        copied = true;
      } else if (first < 0 || p < first) {
        first = p;
      }
    }
    if (!copied || first < 0 || first < position[id]) continue;
    if (at.empty()) {
      at.assign(order.size(), kNoNode);
      moved.assign(static_cast<size_t>(g.size()), false);
    }
    if (at[static_cast<size_t>(first)] != kNoNode) continue;  // another fill runs there: this one stays
    at[static_cast<size_t>(first)] = id;
    moved[id] = true;
  }
  if (at.empty()) return;
  std::vector<NodeId> out;
  out.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    if (at[i] != kNoNode) out.push_back(at[i]);
    if (!moved[order[i]]) out.push_back(order[i]);
  }
  order = std::move(out);
}

std::vector<int32_t> scatter_copy_positions(const Graph& g, const std::vector<NodeId>& order, const Flags& is_input,
                                            const std::vector<NodeId>& root, const Flags& stored, const Flags& item,
                                            bool fills_at_readers) {
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
    const NodeId destination =
        is_copying_scatter(g[id]) && !g[id].positional_inputs.empty() ? root[g[id].positional_inputs[0]] : kNoNode;
    // The copies of a fill are no copies of one buffer (fills_at_readers:
    // each scatter writes the constant into its own).
    if (destination != kNoNode && !is_input[id] && root[id] == id && holds(id) &&
        !(fills_at_readers && !is_input[destination] && scatter_copies_fill(g, destination, id))) {
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
