// Solving the flow network: the cut PyTorch takes among equal minimum cuts
// (docs/design.md section 4): the sink side is every vertex that can still reach
// the sink in the residual network of a maximum flow (the same set for every
// maximum flow). X is saved when X_in is on the source side and X_out on the
// sink side. The network is first contracted (cut_contraction.h), then LEMON's
// Preflow solves each remaining component exactly (preflow_cut.h).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "partition/capacity.h"
#include "partition/flow_network.h"

namespace pt {

struct MinCut {
  bool feasible = true;          // false: every cut is infinite
  FlowValue value = 0;           // the maximum flow = the cut's capacity (when feasible)
  std::vector<NodeId> saved;     // graph order
  // Per vertex of the network: can reach the sink in the residual network.
  // When infeasible: the vertices joined to the sink by infinite arcs.
  Flags sink_side;
};

// Any s-t network (saved is left empty), with capacities of any size.
MinCut solve_min_cut(int32_t vertex_count, const std::vector<FlowArc>& arcs, int32_t source, int32_t sink);

MinCut solve_min_cut(const FlowNetwork& net);

}  // namespace pt
