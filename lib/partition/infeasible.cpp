#include "partition/infeasible.h"

#include <algorithm>
#include <vector>

#include "graph/printable.h"

namespace pt {

namespace {

std::string why_unsaveable(const Graph& g, NodeId id) {
  switch (g[id].value_kind) {
    case ValueKind::Tuple: return "its value is a tuple";
    case ValueKind::None: return "its value is None";
    case ValueKind::Opaque: return "its value is an opaque " + printable(g.record(id).val().opaque());
    case ValueKind::Absent: return "it has no recorded value";
    default: return "it is a view and recompute_views is on";
  }
}

std::string why_backward(const Graph& g, const Classification& c, NodeId id, SinkTie tie) {
  const Node& n = g[id];
  if (tie == SinkTie::Out) return "it is a gradient output";
  if (n.recompute == Recompute::MustRecompute || n.recompute == Recompute::PreferRecompute) {
    return "it is tagged " + std::string(n.recompute == Recompute::MustRecompute ? "MUST_RECOMPUTE" : "PREFER_RECOMPUTE");
  }
  if (n.input_kind == InputKind::Tangent) return "it is a tangent";
  if (c.tangent_closure[id]) return "it depends on a tangent or must run in the backward";
  return "it runs in the backward";
}

}  // namespace

std::string explain_infeasible(const Graph& g, const Classification& c, const FlowNetwork& net) {
  // Breadth-first search over infinite arcs from the source to the sink.
  std::vector<std::vector<int32_t>> out(net.vertex_count);
  for (const auto& a : net.arcs) {
    if (a.capacity == kInfinite) out[a.from].push_back(a.to);
  }
  std::vector<int32_t> parent(net.vertex_count, -2);
  std::vector<int32_t> queue{FlowNetwork::kSource};
  parent[FlowNetwork::kSource] = -1;
  for (size_t head = 0; head < queue.size() && parent[FlowNetwork::kSink] == -2; ++head) {
    for (int32_t v : out[queue[head]]) {
      if (parent[v] == -2) {
        parent[v] = queue[head];
        queue.push_back(v);
      }
    }
  }
  std::string msg = g.source + ": no finite cut exists:";
  if (parent[FlowNetwork::kSink] == -2) return msg + " (no chain of infinite constraints found)";
  std::vector<int32_t> path;
  for (int32_t v = FlowNetwork::kSink; v != -1; v = parent[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());

  // Each node along the path appears as X_in (and X_out when it cannot be saved).
  std::vector<NodeId> nodes;
  for (int32_t v : path) {
    if (v < 2) continue;
    const NodeId x = (v - 2) / 2;
    if (nodes.empty() || nodes.back() != x) nodes.push_back(x);
  }
  for (size_t k = 0; k < nodes.size(); ++k) {
    const NodeId x = nodes[k];
    const Node& n = g[x];
    msg += k == 0 ? " '" : "; '";
    msg += printable(n.name) + "'";
    if (k > 0) msg += " reads '" + printable(g[nodes[k - 1]].name) + "' and";
    if (k == 0) msg += " cannot be recomputed (" + std::string(ban_reason_detail(net.banned[x])) + ")";
    const bool last = k + 1 == nodes.size();
    if (last) {
      msg += std::string(k == 0 ? " and" : "") + " is needed by the backward (" + why_backward(g, c, x, net.sink[x]) + ")";
    } else {
      msg += std::string(k == 0 ? " and" : "") + " cannot be saved (" + why_unsaveable(g, x) + ")";
    }
  }
  return msg;
}

}  // namespace pt
