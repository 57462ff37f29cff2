// Shrinks a flow network before the max-flow solve without changing any
// minimum cut (docs/design.md section 8).
//
// A vertex joined to the sink by a path of infinite arcs is on the sink side
// of every finite cut, and one reached from the source by infinite arcs is on
// the source side: both are merged into the sink and the source. Arcs leaving
// the sink side or entering the source side never cross a cut and are
// dropped; finite arcs from the source side straight to the sink side cross
// every cut and become a constant. What is left splits into independent
// components that share only the source and the sink, each solved on its own.
//
// This keeps PyTorch's tie rule exact: the vertices that can reach the sink in
// the residual network of a maximum flow are the sink side of the minimum cut
// with the smallest sink side, which depends only on the family of minimum
// cuts. The merges and drops leave that family unchanged, forced sink-side
// vertices are in it and forced source-side vertices are not, and a residual
// path never passes through the source of a maximum flow, so the components'
// sink sides are independent.
#pragma once

#include <cstdint>
#include <vector>

#include "partition/capacity.h"
#include "partition/flow_network.h"

namespace pt {

enum class ForcedSide : int8_t { Free = 0, Source = -1, Sink = 1 };

struct ContractedNetwork {
  // False when an all-infinite path joins the source to the sink: no finite
  // cut exists (the rest is then left empty).
  bool feasible = true;
  std::vector<ForcedSide> side;  // per vertex of the original network
  Capacity constant = 0;         // finite arcs from the source side to the sink side

  // Components, each a small network: local vertex 0 is the (merged) source,
  // 1 the sink, 2 + k the free vertex vertices[vertex_start[c] + k]. Its
  // arcs are the original arcs arc_ids[arc_start[c] ...), in their order,
  // with endpoints local_vertex() gives. Indices, not copies: at 10^6 nodes
  // 4 bytes instead of 24 an arc kept (0.93M arcs), 17 MB less at the
  // solve's peak (docs/performance.md, "Session 28").
  std::vector<int32_t> vertex_start;  // per component, then the total
  std::vector<int32_t> vertices;      // original ids
  std::vector<int32_t> arc_start;     // per component, then the total
  std::vector<int32_t> arc_ids;       // into the original arcs
  std::vector<int32_t> local;         // per original free vertex that an arc kept touches: 2 + k

  int32_t component_count() const { return static_cast<int32_t>(vertex_start.size()) - 1; }
  // The local id of original vertex v in its component's network.
  int32_t local_vertex(int32_t v) const {
    const ForcedSide s = side[static_cast<size_t>(v)];
    return s == ForcedSide::Source ? 0 : s == ForcedSide::Sink ? 1 : local[static_cast<size_t>(v)];
  }
};

ContractedNetwork contract_network(int32_t vertex_count, const std::vector<FlowArc>& arcs, int32_t source,
                                   int32_t sink);

}  // namespace pt
