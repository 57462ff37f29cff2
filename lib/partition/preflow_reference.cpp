#include "partition/preflow_reference.h"

#include <lemon/preflow.h>
#include <lemon/smart_graph.h>

namespace pt {

ReferenceCut preflow_reference_cut(int32_t n, const std::vector<FlowArc>& arcs, int32_t s, int32_t t,
                                   bool sink_side) {
  lemon::SmartDigraph g;
  g.reserveNode(n);
  g.reserveArc(static_cast<int>(arcs.size()));
  for (int32_t v = 0; v < n; ++v) g.addNode();
  int64_t finite = 0;
  for (const auto& a : arcs) finite += a.capacity == kInfinite ? 0 : static_cast<int64_t>(a.capacity);
  const int64_t infinity = finite + 1;
  lemon::SmartDigraph::ArcMap<int64_t> cap(g);
  for (const auto& a : arcs) {
    cap[g.addArc(g.nodeFromId(a.from), g.nodeFromId(a.to))] =
        a.capacity == kInfinite ? infinity : static_cast<int64_t>(a.capacity);
  }
  lemon::Preflow<lemon::SmartDigraph, lemon::SmartDigraph::ArcMap<int64_t>> preflow(g, cap, g.nodeFromId(s),
                                                                                    g.nodeFromId(t));
  ReferenceCut r;
  if (!sink_side) {
    preflow.runMinCut();
    r.value = preflow.flowValue();
    r.feasible = r.value < infinity;
    return r;
  }
  preflow.run();
  r.value = preflow.flowValue();
  r.feasible = r.value < infinity;
  r.sink_side.assign(static_cast<size_t>(n), false);
  std::vector<int32_t> queue{t};
  r.sink_side[t] = true;
  for (size_t head = 0; head < queue.size(); ++head) {
    const auto w = g.nodeFromId(queue[head]);
    for (lemon::SmartDigraph::InArcIt a(g, w); a != lemon::INVALID; ++a) {
      const int32_t u = g.id(g.source(a));
      if (!r.sink_side[u] && preflow.flow(a) < cap[a]) {
        r.sink_side[u] = true;
        queue.push_back(u);
      }
    }
    for (lemon::SmartDigraph::OutArcIt a(g, w); a != lemon::INVALID; ++a) {
      const int32_t v = g.id(g.target(a));
      if (!r.sink_side[v] && preflow.flow(a) > 0) {
        r.sink_side[v] = true;
        queue.push_back(v);
      }
    }
  }
  return r;
}

}  // namespace pt
