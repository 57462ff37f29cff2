#include "partition/cut_contraction.h"

namespace pt {

namespace {

// The infinite arcs as compressed adjacency lists, by tail (forward) or by head.
struct Adjacency {
  std::vector<int32_t> start;  // per vertex, then the total
  std::vector<int32_t> other;  // the arc's other endpoint
};

Adjacency infinite_arcs(int32_t vertex_count, const std::vector<FlowArc>& arcs, bool by_tail) {
  Adjacency adj;
  adj.start.assign(static_cast<size_t>(vertex_count) + 1, 0);
  for (const FlowArc& a : arcs) {
    if (a.capacity == kInfinite) ++adj.start[static_cast<size_t>(by_tail ? a.from : a.to) + 1];
  }
  for (int32_t v = 0; v < vertex_count; ++v) adj.start[v + 1] += adj.start[v];
  adj.other.resize(static_cast<size_t>(adj.start[vertex_count]));
  std::vector<int32_t> next(adj.start.begin(), adj.start.end() - 1);
  for (const FlowArc& a : arcs) {
    if (a.capacity != kInfinite) continue;
    const int32_t key = by_tail ? a.from : a.to;
    adj.other[static_cast<size_t>(next[key]++)] = by_tail ? a.to : a.from;
  }
  return adj;
}

// Marks `mark` on every vertex reachable from `root` along `adj`. Returns
// false when it reaches a vertex already marked with the other side.
bool flood(const Adjacency& adj, int32_t root, ForcedSide mark, std::vector<ForcedSide>& side) {
  if (side[root] != ForcedSide::Free) return side[root] == mark;
  std::vector<int32_t> queue{root};
  side[root] = mark;
  for (size_t head = 0; head < queue.size(); ++head) {
    const int32_t v = queue[head];
    for (int32_t k = adj.start[v]; k < adj.start[v + 1]; ++k) {
      const int32_t w = adj.other[static_cast<size_t>(k)];
      if (side[w] == mark) continue;
      if (side[w] != ForcedSide::Free) return false;
      side[w] = mark;
      queue.push_back(w);
    }
  }
  return true;
}

int32_t find_root(std::vector<int32_t>& parent, int32_t v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];  // path halving
    v = parent[v];
  }
  return v;
}

enum class ArcFate : uint8_t { Dropped, Constant, Kept };

ArcFate fate(const std::vector<ForcedSide>& side, const FlowArc& a) {
  const ForcedSide from = side[a.from];
  const ForcedSide to = side[a.to];
  if (from == ForcedSide::Sink || to == ForcedSide::Source) return ArcFate::Dropped;
  if (from == ForcedSide::Source && to == ForcedSide::Sink) return ArcFate::Constant;
  return ArcFate::Kept;
}

}  // namespace

ContractedNetwork contract_network(int32_t vertex_count, const std::vector<FlowArc>& arcs, int32_t source,
                                   int32_t sink) {
  ContractedNetwork out;
  out.side.assign(static_cast<size_t>(vertex_count), ForcedSide::Free);
  // One adjacency at a time: each is 4 bytes a vertex and an infinite arc,
  // and the solve's stage sets much of a large run's peak memory.
  out.feasible = flood(infinite_arcs(vertex_count, arcs, false), sink, ForcedSide::Sink, out.side);
  if (out.feasible) out.feasible = flood(infinite_arcs(vertex_count, arcs, true), source, ForcedSide::Source, out.side);
  if (!out.feasible) {
    out.vertex_start = out.arc_start = {0};
    return out;
  }

  // Components of the free vertices, joined by kept arcs between two of them.
  std::vector<int32_t> parent(static_cast<size_t>(vertex_count));
  for (int32_t v = 0; v < vertex_count; ++v) parent[v] = v;
  Flags touched(static_cast<size_t>(vertex_count), false);
  for (const FlowArc& a : arcs) {
    switch (fate(out.side, a)) {
      case ArcFate::Dropped: break;
      case ArcFate::Constant: out.constant += a.capacity; break;  // finite: an infinite one would be infeasible
      case ArcFate::Kept: {
        const bool free_from = out.side[a.from] == ForcedSide::Free;
        const bool free_to = out.side[a.to] == ForcedSide::Free;
        if (free_from) touched[a.from] = true;
        if (free_to) touched[a.to] = true;
        if (free_from && free_to) parent[find_root(parent, a.from)] = find_root(parent, a.to);
        break;
      }
    }
  }

  // Number the components by their first vertex; list their vertices.
  std::vector<int32_t> component(static_cast<size_t>(vertex_count), -1);  // of each root, then of each vertex
  out.local.assign(static_cast<size_t>(vertex_count), -1);
  std::vector<int32_t> sizes;
  for (int32_t v = 0; v < vertex_count; ++v) {
    if (!touched[v]) continue;
    const int32_t root = find_root(parent, v);
    if (component[root] < 0) {
      component[root] = static_cast<int32_t>(sizes.size());
      sizes.push_back(0);
    }
    component[v] = component[root];
    out.local[v] = 2 + sizes[static_cast<size_t>(component[v])]++;
  }
  std::vector<int32_t>().swap(parent);  // done with: the lists below take its memory
  out.vertex_start.assign(sizes.size() + 1, 0);
  for (size_t c = 0; c < sizes.size(); ++c) out.vertex_start[c + 1] = out.vertex_start[c] + sizes[c];
  out.vertices.resize(static_cast<size_t>(out.vertex_start.back()));
  for (int32_t v = 0; v < vertex_count; ++v) {
    if (touched[v]) out.vertices[static_cast<size_t>(out.vertex_start[component[v]] + out.local[v] - 2)] = v;
  }
  Flags().swap(touched);

  // The kept arcs, grouped by component, in their order.
  auto component_of = [&](const FlowArc& a) {
    return out.side[a.from] == ForcedSide::Free ? component[a.from] : component[a.to];
  };
  out.arc_start.assign(sizes.size() + 1, 0);
  for (const FlowArc& a : arcs) {
    if (fate(out.side, a) == ArcFate::Kept) ++out.arc_start[static_cast<size_t>(component_of(a)) + 1];
  }
  for (size_t c = 0; c < sizes.size(); ++c) out.arc_start[c + 1] += out.arc_start[c];
  out.arc_ids.resize(static_cast<size_t>(out.arc_start.back()));
  std::vector<int32_t> next(out.arc_start.begin(), out.arc_start.end() - 1);
  for (size_t i = 0; i < arcs.size(); ++i) {
    const FlowArc& a = arcs[i];
    if (fate(out.side, a) != ArcFate::Kept) continue;
    out.arc_ids[static_cast<size_t>(next[static_cast<size_t>(component_of(a))]++)] = static_cast<int32_t>(i);
  }
  return out;
}

}  // namespace pt
