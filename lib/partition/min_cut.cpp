#include "partition/min_cut.h"

#include <lemon/bits/default_map.h>

// LEMON stores maps of types it does not know in ArrayMap, which needs
// std::allocator::construct, removed in C++20; 128-bit capacities use the
// VectorMap it picks for the builtin integers.
namespace lemon {
template <typename G, typename Item>
struct DefaultMapSelector<G, Item, __int128> {
  typedef VectorMap<G, Item, __int128> Map;
};
}  // namespace lemon

#include <lemon/preflow.h>
#include <lemon/smart_graph.h>

#include <string>

#include "graph/errors.h"

namespace pt {

// The "infinite" sentinel S exceeds the sum of all finite capacities; no
// excess or flow value can exceed S times the number of arcs, which
// solve_min_cut checks fits in 127 bits.

MinCut solve_min_cut(const FlowNetwork& net) {
  lemon::SmartDigraph graph;
  graph.reserveNode(net.vertex_count);
  graph.reserveArc(static_cast<int>(net.arcs.size()));
  for (int32_t v = 0; v < net.vertex_count; ++v) graph.addNode();

  Capacity finite_sum = 0;
  for (const auto& a : net.arcs) {
    if (a.capacity != kInfinite) finite_sum += a.capacity;  // each < 2^100, at most 2^26 arcs: no overflow
  }
  if (finite_sum >= (Capacity{1} << 100) / static_cast<Capacity>(net.arcs.size() + 2)) {
    throw InputError("the flow network's capacities sum to " + to_string(finite_sum) +
                     ", beyond what 128-bit arithmetic solves exactly; lower dist_from_bw_base or dist_from_bw_cap");
  }
  const Capacity infinity = finite_sum + 1;

  lemon::SmartDigraph::ArcMap<Capacity> capacity(graph);
  for (const auto& a : net.arcs) {
    const auto arc = graph.addArc(graph.nodeFromId(a.from), graph.nodeFromId(a.to));
    capacity[arc] = a.capacity == kInfinite ? infinity : a.capacity;
  }
  // SmartDigraph ArcMaps created before the arcs grow with them.
  const auto source = graph.nodeFromId(FlowNetwork::kSource);
  const auto sink = graph.nodeFromId(FlowNetwork::kSink);
  lemon::Preflow<lemon::SmartDigraph, lemon::SmartDigraph::ArcMap<Capacity>> preflow(graph, capacity, source, sink);
  preflow.run();  // both phases: a real maximum flow, so the residual network is well defined

  MinCut cut;
  const Capacity flow_value = preflow.flowValue();
  cut.feasible = flow_value < infinity;
  cut.value = cut.feasible ? flow_value : infinity;

  // Reverse BFS from the sink over arcs with residual capacity.
  cut.sink_side.assign(net.vertex_count, false);
  std::vector<int32_t> queue{FlowNetwork::kSink};
  cut.sink_side[FlowNetwork::kSink] = true;
  for (size_t head = 0; head < queue.size(); ++head) {
    const auto w = graph.nodeFromId(queue[head]);
    for (lemon::SmartDigraph::InArcIt a(graph, w); a != lemon::INVALID; ++a) {
      const int32_t u = graph.id(graph.source(a));
      if (!cut.sink_side[u] && preflow.flow(a) < capacity[a]) {
        cut.sink_side[u] = true;
        queue.push_back(u);
      }
    }
    for (lemon::SmartDigraph::OutArcIt a(graph, w); a != lemon::INVALID; ++a) {
      const int32_t v = graph.id(graph.target(a));
      if (!cut.sink_side[v] && preflow.flow(a) > 0) {
        cut.sink_side[v] = true;
        queue.push_back(v);
      }
    }
  }
  if (!cut.feasible) return cut;
  const NodeId nodes = (net.vertex_count - 2) / 2;
  for (NodeId x = 0; x < nodes; ++x) {
    if (net.weight[x] && !cut.sink_side[FlowNetwork::in(x)] && cut.sink_side[FlowNetwork::out(x)]) {
      cut.saved.push_back(x);
    }
  }
  return cut;
}

}  // namespace pt
