// Solving the flow network: the cut PyTorch takes among equal minimum cuts
// (docs/design.md section 4): the sink side is every vertex that can still reach
// the sink in the residual network of a maximum flow (the same set for every
// maximum flow). X is saved when X_in is on the source side and X_out on the
// sink side. The network is first contracted (cut_contraction.h), then each
// remaining component is solved exactly (max_flow.h).
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
  // Per vertex of the network: can reach the sink in the residual network.
  // When infeasible: the vertices joined to the sink by infinite arcs.
  Flags sink_side;
};

// Any s-t network (saved is left empty). Throws InputError when the finite
// capacities sum beyond what 128-bit arithmetic solves exactly. `threads`
// as everywhere (1: this thread only; 0: the machine's cores, for networks
// of kParallelNodes arcs or more): the components may be solved on two.
// The cut never depends on it.
MinCut solve_min_cut(int32_t vertex_count, const std::vector<FlowArc>& arcs, int32_t source, int32_t sink,
                     unsigned threads = 1);

MinCut solve_min_cut(const FlowNetwork& net, unsigned threads = 1);

}  // namespace pt
