#include "partition/preflow_reference.h"

#include "partition/preflow_cut.h"

namespace pt {

namespace {

template <class Value>
ReferenceCut solve(int32_t n, const std::vector<FlowArc>& arcs, int32_t s, int32_t t, const Value& infinity,
                   bool sink_side) {
  lemon::SmartDigraph g;
  g.reserveNode(n);
  g.reserveArc(static_cast<int>(arcs.size()));
  for (int32_t v = 0; v < n; ++v) g.addNode();
  lemon::SmartDigraph::ArcMap<Value> capacity(g);
  for (const auto& a : arcs) {
    capacity[g.addArc(g.nodeFromId(a.from), g.nodeFromId(a.to))] = a.capacity == kInfinite ? infinity : Value(a.capacity);
  }
  ReferenceCut r;
  if (sink_side) {
    r.value = preflow_sink_side(g, capacity, g.nodeFromId(s), g.nodeFromId(t), PreflowRun::MaximumFlow, r.sink_side);
  } else {
    lemon::Preflow<lemon::SmartDigraph, lemon::SmartDigraph::ArcMap<Value>> preflow(g, capacity, g.nodeFromId(s),
                                                                                  g.nodeFromId(t));
    preflow.runMinCut();
    r.value = preflow.flowValue();
  }
  r.feasible = r.value < infinity;
  return r;
}

}  // namespace

ReferenceCut preflow_reference_cut(int32_t n, const std::vector<FlowArc>& arcs, int32_t s, int32_t t,
                                   bool sink_side) {
  // Infinite arcs get one more than the finite capacities' sum: a maximum
  // flow reaches that only when no finite cut exists.
  FlowValue finite = 0;
  for (const auto& a : arcs) {
    if (a.capacity != kInfinite) finite += a.capacity;
  }
  const FlowValue infinity = finite + 1;
  // 64-bit integers when no excess can pass 2^62: the source sends out at
  // most one infinity per arc.
  if (infinity * static_cast<long>(arcs.size() + 1) < FlowValue(int64_t{1} << 62)) {
    return solve<int64_t>(n, arcs, s, t, infinity.get_si(), sink_side);
  }
  return solve<FlowValue>(n, arcs, s, t, infinity, sink_side);
}

}  // namespace pt
