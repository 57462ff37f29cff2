#include "prepare/dead_code.h"

#include <cstddef>

namespace pt {

Flags live_nodes(const Graph& g) {
  const Flags present(static_cast<size_t>(g.size()), true);
  Flags roots(static_cast<size_t>(g.size()), false);
  for (NodeId id = 0; id < g.size(); ++id) roots[id] = g[id].impure || g[id].op == OpKind::Output;
  return live_nodes(g, present, roots);
}

Flags live_nodes(const Graph& g, const Flags& present, const Flags& roots) {
  const NodeId count = g.size();
  Flags live(static_cast<size_t>(count), false);
  // Users always come later in graph order, so their liveness is final when
  // a node is reached walking backwards.
  for (NodeId id = count - 1; id >= 0; --id) {
    if (!present[id]) continue;
    bool keep = roots[id];
    for (size_t k = 0; !keep && k < g.users[id].size(); ++k) keep = live[g.users[id][k]];
    live[id] = keep;
  }
  return live;
}

Flags live_from_roots(const std::vector<std::vector<NodeId>>& users, const Flags& roots) {
  const size_t count = users.size();
  // Inputs of each node in compressed form (the reverse of `users`).
  std::vector<size_t> start(count + 1, 0);
  for (size_t n = 0; n < count; ++n) {
    for (NodeId u : users[n]) ++start[static_cast<size_t>(u) + 1];
  }
  for (size_t n = 0; n < count; ++n) start[n + 1] += start[n];
  std::vector<NodeId> inputs(start[count]);
  std::vector<size_t> fill(start.begin(), start.end() - 1);
  for (size_t n = 0; n < count; ++n) {
    for (NodeId u : users[n]) inputs[fill[static_cast<size_t>(u)]++] = static_cast<NodeId>(n);
  }
  Flags live(count, false);
  std::vector<NodeId> work;
  for (size_t n = 0; n < count; ++n) {
    if (roots[n]) {
      live[n] = true;
      work.push_back(static_cast<NodeId>(n));
    }
  }
  while (!work.empty()) {
    const size_t n = static_cast<size_t>(work.back());
    work.pop_back();
    for (size_t k = start[n]; k < start[n + 1]; ++k) {
      const NodeId in = inputs[k];
      if (!live[in]) {
        live[in] = true;
        work.push_back(in);
      }
    }
  }
  return live;
}

}  // namespace pt
