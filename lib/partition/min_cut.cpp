#include "partition/min_cut.h"

#include <string>

#include "graph/errors.h"
#include "partition/cut_contraction.h"
#include "partition/max_flow.h"

namespace pt {

namespace {

// Solves every component of `cn` (of the network `arcs`) with capacities of
// type Cap; marks the free vertices that reach the sink. Returns the summed
// flow.
template <class Cap>
Capacity solve_components(const ContractedNetwork& cn, const std::vector<FlowArc>& arcs, Capacity infinity,
                          Flags& sink_side) {
  MaxFlowSolver<Cap> solver;
  std::vector<FlowArc> local;  // the component's arcs with local endpoints
  Capacity total = 0;
  for (int32_t c = 0; c < cn.component_count(); ++c) {
    const int32_t first = cn.vertex_start[c];
    const int32_t count = cn.vertex_start[c + 1] - first;
    local.clear();
    for (int32_t k = cn.arc_start[c]; k < cn.arc_start[c + 1]; ++k) {
      const FlowArc& a = arcs[static_cast<size_t>(cn.arc_ids[static_cast<size_t>(k)])];
      local.push_back({cn.local_vertex(a.from), cn.local_vertex(a.to), a.capacity});
    }
    total += solver.solve(2 + count, local.data(), static_cast<int32_t>(local.size()), static_cast<Cap>(infinity));
    for (int32_t k = 0; k < count; ++k) {
      if (solver.reaches_sink(2 + k)) sink_side[cn.vertices[static_cast<size_t>(first + k)]] = true;
    }
  }
  return total;
}

}  // namespace

MinCut solve_min_cut(int32_t vertex_count, const std::vector<FlowArc>& arcs, int32_t source, int32_t sink) {
  Capacity finite_sum = 0;
  for (const auto& a : arcs) {
    if (a.capacity != kInfinite) finite_sum += a.capacity;  // each < 2^100, at most 2^26 arcs: no overflow
  }
  if (finite_sum >= (Capacity{1} << 100) / static_cast<Capacity>(arcs.size() + 2)) {
    throw InputError("the flow network's capacities sum to " + to_string(finite_sum) +
                     ", beyond what 128-bit arithmetic solves exactly; lower dist_from_bw_base or dist_from_bw_cap");
  }
  // Above every finite cut, so a flow reaching it means no finite cut exists.
  const Capacity infinity = finite_sum + 1;

  MinCut cut;
  const ContractedNetwork cn = contract_network(vertex_count, arcs, source, sink);
  cut.sink_side.assign(static_cast<size_t>(vertex_count), false);
  for (int32_t v = 0; v < vertex_count; ++v) cut.sink_side[v] = cn.side[v] == ForcedSide::Sink;
  cut.feasible = cn.feasible;
  if (!cn.feasible) {
    cut.value = infinity;
    return cut;
  }
  // Flows stay below `infinity`, residual capacities at or below it.
  const bool narrow = infinity < (Capacity{1} << 62);
  cut.value = cn.constant + (narrow ? solve_components<int64_t>(cn, arcs, infinity, cut.sink_side)
                                    : solve_components<__int128>(cn, arcs, infinity, cut.sink_side));
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
