#include "partition/min_cut.h"

#include <optional>

#include "partition/cut_contraction.h"
#include "partition/preflow_cut.h"

namespace pt {

namespace {

// Below this sum of finite capacities a component is solved in 64-bit
// integers: its infinite arcs get the sum plus one, and no flow, excess or
// residual capacity exceeds that (no arc leaves the merged source with
// infinite capacity, so the source sends out at most the sum).
constexpr int64_t kNarrowSum = int64_t{1} << 62;

// Component c's finite capacities summed in 64 bits; nullopt from kNarrowSum on.
std::optional<int64_t> narrow_sum(const ContractedNetwork& cn, const std::vector<FlowArc>& arcs, int32_t c) {
  int64_t sum = 0;
  for (int32_t k = cn.arc_start[c]; k < cn.arc_start[c + 1]; ++k) {
    const Capacity capacity = arcs[static_cast<size_t>(cn.arc_ids[static_cast<size_t>(k)])].capacity;
    if (capacity == kInfinite) continue;
    if (capacity >= static_cast<double>(kNarrowSum)) return std::nullopt;
    sum += static_cast<int64_t>(capacity);
    if (sum >= kNarrowSum) return std::nullopt;
  }
  return sum;
}

FlowValue wide_sum(const ContractedNetwork& cn, const std::vector<FlowArc>& arcs, int32_t c) {
  FlowValue sum = 0;
  for (int32_t k = cn.arc_start[c]; k < cn.arc_start[c + 1]; ++k) {
    const Capacity capacity = arcs[static_cast<size_t>(cn.arc_ids[static_cast<size_t>(k)])].capacity;
    if (capacity != kInfinite) sum += capacity;
  }
  return sum;
}

// Component c of `cn` as a LEMON digraph (node k is the component's local
// vertex k: 0 the merged source, 1 the merged sink), solved by Preflow with
// `infinity` on its infinite arcs. Marks the component's vertices that reach
// the sink; returns its maximum flow.
template <class Value>
Value solve_component(const ContractedNetwork& cn, const std::vector<FlowArc>& arcs, int32_t c, const Value& infinity,
                      Flags& sink_side) {
  const int32_t first = cn.vertex_start[c];
  const int32_t count = cn.vertex_start[c + 1] - first;
  lemon::SmartDigraph g;
  g.reserveNode(2 + count);
  g.reserveArc(cn.arc_start[c + 1] - cn.arc_start[c]);
  for (int32_t v = 0; v < 2 + count; ++v) g.addNode();
  lemon::SmartDigraph::ArcMap<Value> capacity(g);
  for (int32_t k = cn.arc_start[c]; k < cn.arc_start[c + 1]; ++k) {
    const FlowArc& a = arcs[static_cast<size_t>(cn.arc_ids[static_cast<size_t>(k)])];
    const auto arc = g.addArc(g.nodeFromId(cn.local_vertex(a.from)), g.nodeFromId(cn.local_vertex(a.to)));
    capacity[arc] = a.capacity == kInfinite ? infinity : Value(a.capacity);
  }
  Flags local_side;
  const Value flow =
      preflow_sink_side(g, capacity, g.nodeFromId(0), g.nodeFromId(1), PreflowRun::MaximumPreflow, local_side);
  for (int32_t k = 0; k < count; ++k) {
    if (local_side[static_cast<size_t>(2 + k)]) sink_side[cn.vertices[static_cast<size_t>(first + k)]] = true;
  }
  return flow;
}

}  // namespace

MinCut solve_min_cut(int32_t vertex_count, const std::vector<FlowArc>& arcs, int32_t source, int32_t sink) {
  MinCut cut;
  const ContractedNetwork cn = contract_network(vertex_count, arcs, source, sink);
  cut.sink_side.assign(static_cast<size_t>(vertex_count), false);
  for (int32_t v = 0; v < vertex_count; ++v) cut.sink_side[v] = cn.side[v] == ForcedSide::Sink;
  cut.feasible = cn.feasible;
  if (!cn.feasible) return cut;
  cut.value = cn.constant;
  for (int32_t c = 0; c < cn.component_count(); ++c) {
    // 64-bit integers where the component allows (nearly always: weights
    // pass 2^62 only with a steep dist_from_bw_base), GMP integers otherwise.
    if (const std::optional<int64_t> sum = narrow_sum(cn, arcs, c)) {
      cut.value += solve_component<int64_t>(cn, arcs, c, *sum + 1, cut.sink_side);
    } else {
      cut.value += solve_component<FlowValue>(cn, arcs, c, wide_sum(cn, arcs, c) + 1, cut.sink_side);
    }
  }
  return cut;
}

MinCut solve_min_cut(const FlowNetwork& net) {
  MinCut cut = solve_min_cut(net.vertex_count, net.arcs, FlowNetwork::kSource, FlowNetwork::kSink);
  if (!cut.feasible) return cut;
  const NodeId nodes = (net.vertex_count - 2) / 2;
  for (NodeId x = 0; x < nodes; ++x) {
    if (net.weight_arc[x] >= 0 && !cut.sink_side[FlowNetwork::in(x)] && cut.sink_side[FlowNetwork::out(x)]) {
      cut.saved.push_back(x);
    }
  }
  return cut;
}

}  // namespace pt
