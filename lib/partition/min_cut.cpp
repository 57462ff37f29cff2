#include "partition/min_cut.h"

#include <algorithm>
#include <optional>
#include <string>

#include "graph/errors.h"
#include "graph/heap_top.h"
#include "graph/page_prefault.h"
#include "graph/side_by_side.h"
#include "partition/cut_contraction.h"
#include "partition/max_flow.h"

namespace pt {

namespace {

// Solves components [from, to) of `cn` (of the network `arcs`) with
// capacities of type Cap; marks the free vertices that reach the sink.
// Returns the summed flow.
template <class Cap>
Capacity solve_components(const ContractedNetwork& cn, const std::vector<FlowArc>& arcs, Capacity infinity,
                          int32_t from, int32_t to, Flags& sink_side) {
  MaxFlowSolver<Cap> solver;
  std::vector<FlowArc> local;  // the component's arcs with local endpoints
  Capacity total = 0;
  for (int32_t c = from; c < to; ++c) {
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

// Every component. The components share no vertex, so with `parallel` the
// two halves of their arcs are solved on two threads, each marking its own
// vertices (one byte each): at 10^6 nodes 114,000 components took 32-35 ms
// on one thread, with the second core idle. The sum and the marks are the
// same either way.
template <class Cap>
Capacity solve_all_components(const ContractedNetwork& cn, const std::vector<FlowArc>& arcs, Capacity infinity,
                              bool parallel, Flags& sink_side) {
  const int32_t count = cn.component_count();
  if (!parallel || count < 2) return solve_components<Cap>(cn, arcs, infinity, 0, count, sink_side);
  // The first component whose arcs start at or past half of them.
  const int32_t half_arcs = cn.arc_start[count] / 2;
  const auto mid = static_cast<int32_t>(
      std::lower_bound(cn.arc_start.begin(), cn.arc_start.begin() + count, half_arcs) - cn.arc_start.begin());
  Capacity first = 0, second = 0;
  run_side_by_side(
      true, [&] { second = solve_components<Cap>(cn, arcs, infinity, mid, count, sink_side); },
      [&] { first = solve_components<Cap>(cn, arcs, infinity, 0, mid, sink_side); });
  return first + second;
}

}  // namespace

MinCut solve_min_cut(int32_t vertex_count, const std::vector<FlowArc>& arcs, int32_t source, int32_t sink,
                     unsigned threads) {
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
  // The contraction runs on this thread alone (10^6 nodes: 40-90 ms, as
  // its 22 MB of fresh arrays allowed): the other clears the heap's free
  // end meanwhile, for its arrays and the report's (heap_top.h).
  std::optional<BackgroundPrefault> warm_heap_top;
  warm_heap_top.emplace(malloc_heap_top(kWarmBytesPerNode * static_cast<size_t>(vertex_count / 2)),
                        split_in_two(threads, vertex_count / 2), BackgroundPrefault::Order::FromStart);
  const ContractedNetwork cn = contract_network(vertex_count, arcs, source, sink);
  warm_heap_top.reset();  // the components are solved on both threads
  cut.sink_side.assign(static_cast<size_t>(vertex_count), false);
  for (int32_t v = 0; v < vertex_count; ++v) cut.sink_side[v] = cn.side[v] == ForcedSide::Sink;
  cut.feasible = cn.feasible;
  if (!cn.feasible) {
    cut.value = infinity;
    return cut;
  }
  // Flows stay below `infinity`, residual capacities at or below it.
  const bool narrow = infinity < (Capacity{1} << 62);
  const bool parallel = split_in_two(threads, static_cast<int64_t>(cn.arc_ids.size()));
  cut.value = cn.constant + (narrow ? solve_all_components<int64_t>(cn, arcs, infinity, parallel, cut.sink_side)
                                    : solve_all_components<__int128>(cn, arcs, infinity, parallel, cut.sink_side));
  return cut;
}

MinCut solve_min_cut(const FlowNetwork& net, unsigned threads) {
  MinCut cut = solve_min_cut(net.vertex_count, net.arcs, FlowNetwork::kSource, FlowNetwork::kSink, threads);
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
