#include "partition/max_flow.h"

#include <algorithm>

namespace pt {

template <class Cap>
Cap MaxFlowSolver<Cap>::solve(int32_t vertex_count, const FlowArc* arcs, int32_t arc_count, Cap infinity) {
  build(vertex_count, arcs, arc_count, infinity);
  Cap flow = 0;
  while (levels()) flow += augment();
  mark_sink_side();
  return flow;
}

template <class Cap>
void MaxFlowSolver<Cap>::build(int32_t vertex_count, const FlowArc* arcs, int32_t arc_count, Cap infinity) {
  n_ = vertex_count;
  start_.assign(static_cast<size_t>(n_) + 1, 0);
  for (int32_t i = 0; i < arc_count; ++i) {
    ++start_[static_cast<size_t>(arcs[i].from) + 1];
    ++start_[static_cast<size_t>(arcs[i].to) + 1];
  }
  for (int32_t v = 0; v < n_; ++v) start_[v + 1] += start_[v];
  const auto total = static_cast<size_t>(start_[n_]);
  head_.resize(total);
  pair_.resize(total);
  residual_.resize(total);
  current_.assign(start_.begin(), start_.end() - 1);  // used as the fill position here
  for (int32_t i = 0; i < arc_count; ++i) {
    const FlowArc& a = arcs[i];
    const int32_t forward = current_[a.from]++;
    const int32_t backward = current_[a.to]++;
    head_[forward] = a.to;
    head_[backward] = a.from;
    pair_[forward] = backward;
    pair_[backward] = forward;
    residual_[forward] = a.capacity == kInfinite ? infinity : static_cast<Cap>(a.capacity);
    residual_[backward] = 0;
  }
  level_.resize(static_cast<size_t>(n_));
  reaches_sink_.assign(static_cast<size_t>(n_), 0);
}

// Breadth-first levels from the source over arcs with residual capacity;
// whether the sink is reached.
template <class Cap>
bool MaxFlowSolver<Cap>::levels() {
  std::fill(level_.begin(), level_.end(), -1);
  queue_.assign(1, 0);
  level_[0] = 0;
  for (size_t head = 0; head < queue_.size(); ++head) {
    const int32_t v = queue_[head];
    for (int32_t e = start_[v]; e < start_[v + 1]; ++e) {
      const int32_t w = head_[e];
      if (level_[w] < 0 && residual_[e] > 0) {
        level_[w] = level_[v] + 1;
        if (w != 1) queue_.push_back(w);
      }
    }
  }
  return level_[1] >= 0;
}

// A blocking flow along the levels: depth-first without recursion, with
// current-arc pointers; dead ends are removed from the level graph.
template <class Cap>
Cap MaxFlowSolver<Cap>::augment() {
  current_.assign(start_.begin(), start_.end() - 1);
  path_.clear();
  Cap total = 0;
  int32_t v = 0;
  for (;;) {
    if (v == 1) {
      Cap bottleneck = residual_[path_.front()];
      for (int32_t e : path_) bottleneck = residual_[e] < bottleneck ? residual_[e] : bottleneck;
      size_t saturated = path_.size();
      for (size_t k = 0; k < path_.size(); ++k) {
        const int32_t e = path_[k];
        residual_[e] -= bottleneck;
        residual_[pair_[e]] += bottleneck;
        if (residual_[e] == 0 && saturated == path_.size()) saturated = k;
      }
      total += bottleneck;
      path_.resize(saturated);  // resume from the tail of the first saturated arc
      v = path_.empty() ? 0 : head_[path_.back()];
      continue;
    }
    int32_t& e = current_[v];
    while (e < start_[v + 1] && !(residual_[e] > 0 && level_[head_[e]] == level_[v] + 1)) ++e;
    if (e < start_[v + 1]) {
      path_.push_back(e);
      v = head_[e];
      continue;
    }
    if (v == 0) return total;
    level_[v] = -1;  // a dead end for the rest of this phase
    path_.pop_back();
    v = path_.empty() ? 0 : head_[path_.back()];
  }
}

template <class Cap>
void MaxFlowSolver<Cap>::mark_sink_side() {
  queue_.assign(1, 1);
  reaches_sink_[1] = 1;
  for (size_t head = 0; head < queue_.size(); ++head) {
    const int32_t w = queue_[head];
    for (int32_t e = start_[w]; e < start_[w + 1]; ++e) {
      const int32_t x = head_[e];
      if (!reaches_sink_[x] && residual_[pair_[e]] > 0) {  // the arc x -> w has residual capacity
        reaches_sink_[x] = 1;
        queue_.push_back(x);
      }
    }
  }
}

template class MaxFlowSolver<int64_t>;
template class MaxFlowSolver<__int128>;

}  // namespace pt
