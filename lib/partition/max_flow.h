// Maximum flow on one small network (a component left by cut_contraction.h):
// Dinic's algorithm on a compressed residual graph, then the vertices that
// can still reach the sink in the residual network (PyTorch's sink side).
// Exact on integers; `Cap` is int64_t when the capacities allow, else
// __int128. Buffers are kept between solves, so one solver serves every
// component of a network without reallocating.
#pragma once

#include <cstdint>
#include <vector>

#include "partition/flow_network.h"

namespace pt {

template <class Cap>
class MaxFlowSolver {
 public:
  // Vertex 0 is the source, 1 the sink. Infinite arcs (kInfinite) get
  // capacity `infinity`, which must exceed the maximum flow.
  Cap solve(int32_t vertex_count, const FlowArc* arcs, int32_t arc_count, Cap infinity);
  // After solve: whether local vertex v can reach the sink in the residual network.
  bool reaches_sink(int32_t v) const { return reaches_sink_[static_cast<size_t>(v)] != 0; }

 private:
  void build(int32_t vertex_count, const FlowArc* arcs, int32_t arc_count, Cap infinity);
  bool levels();
  Cap augment();
  void mark_sink_side();

  int32_t n_ = 0;
  std::vector<int32_t> start_;  // per vertex, then the total: residual arcs by tail
  std::vector<int32_t> head_;   // per residual arc
  std::vector<int32_t> pair_;   // the reverse residual arc
  std::vector<Cap> residual_;
  std::vector<int32_t> level_;
  std::vector<int32_t> current_;  // Dinic's current-arc pointer
  std::vector<int32_t> queue_;
  std::vector<int32_t> path_;     // arcs of the path being built
  std::vector<uint8_t> reaches_sink_;
};

extern template class MaxFlowSolver<int64_t>;
extern template class MaxFlowSolver<__int128>;

}  // namespace pt
