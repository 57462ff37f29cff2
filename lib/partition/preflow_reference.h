// The plain reference for min_cut.h: LEMON Preflow on the whole network,
// both phases (a maximum flow), then the reverse residual search from the
// sink; no contraction. Slow on large networks (about n^1.8 on PyTorch's),
// kept for property tests and for benchmarks against bare LEMON.
// Capacities of any size, as for min_cut.h.
#pragma once

#include <cstdint>
#include <vector>

#include "partition/flow_network.h"

namespace pt {

struct ReferenceCut {
  bool feasible = true;
  FlowValue value = 0;
  Flags sink_side;  // empty when not asked for
};

// With `sink_side` false only the maximum flow value is computed (Preflow's
// first phase, runMinCut), as a bare solver would.
ReferenceCut preflow_reference_cut(int32_t vertex_count, const std::vector<FlowArc>& arcs, int32_t source,
                                   int32_t sink, bool sink_side = true);

}  // namespace pt
