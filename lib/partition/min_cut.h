// Solving the flow network: LEMON Preflow on integer capacities, then the
// cut PyTorch takes among equal minimum cuts (DESIGN.md section 4): the sink
// side is every vertex that can still reach the sink in the residual network
// of the maximum flow. X is saved when X_in is on the source side and X_out
// on the sink side.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "partition/capacity.h"
#include "partition/flow_network.h"

namespace pt {

struct MinCut {
  bool feasible = true;          // false: every cut is infinite
  Capacity value = 0;            // the maximum flow = the cut's capacity (when feasible)
  std::vector<NodeId> saved;     // graph order
  std::vector<bool> sink_side;   // per vertex of the network
};

MinCut solve_min_cut(const FlowNetwork& net);

}  // namespace pt
