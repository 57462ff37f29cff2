#include "partition/flow_network.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "partition/ban_heuristics.h"
#include "partition/node_weight.h"

namespace pt {

int64_t FlowNetwork::used_vertex_count() const {
  if (released_counts_) return released_counts_->used_vertices;
  Flags used(vertex_count, false);
  for (const auto& a : arcs) used[a.from] = used[a.to] = true;
  return std::count(used.begin(), used.end(), true);
}

int64_t FlowNetwork::distinct_arc_count() const {
  if (released_counts_) return released_counts_->distinct_arcs;
  if (arcs_distinct) return static_cast<int64_t>(arcs.size());
  // Linear, not a sort of packed (from, to) keys (a tenth of the report
  // stage on gpt2_l96): the arcs' heads bucketed by tail (a counting sort),
  // then each head counted once per tail by marking it with that tail.
  std::vector<int32_t> start(static_cast<size_t>(vertex_count) + 1, 0);
  for (const auto& a : arcs) ++start[static_cast<size_t>(a.from) + 1];
  for (size_t v = 1; v < start.size(); ++v) start[v] += start[v - 1];
  std::vector<int32_t> heads(arcs.size());
  std::vector<int32_t> fill(start.begin(), start.end() - 1);
  for (const auto& a : arcs) heads[static_cast<size_t>(fill[a.from]++)] = a.to;
  std::vector<int32_t> marked_by(static_cast<size_t>(vertex_count), -1);
  int64_t distinct = 0;
  for (int32_t v = 0; v < vertex_count; ++v) {
    for (int32_t i = start[v]; i < start[v + 1]; ++i) {
      int32_t& mark = marked_by[static_cast<size_t>(heads[static_cast<size_t>(i)])];
      if (mark != v) mark = v, ++distinct;
    }
  }
  return distinct;
}

void FlowNetwork::release_arcs() {
  if (released_counts_) return;
  released_counts_ = Counts{used_vertex_count(), distinct_arc_count()};
  std::vector<FlowArc>().swap(arcs);
  std::vector<int32_t>().swap(weight_arc);
}

FlowNetwork build_flow_network(const Graph& g, const Classification& c, const Settings& s, const BanOptions& o) {
  return build_flow_network(g, c, s, o, NodeOpClasses(g, s.op_classes));
}

FlowNetwork build_flow_network(const Graph& g, const Classification& c, const Settings& s, const BanOptions& o,
                               const NodeOpClasses& ops) {
  const NodeId count = g.size();
  FlowNetwork net;
  net.vertex_count = 2 + 2 * count;
  net.weight_arc.assign(count, -1);
  net.sink.assign(count, SinkTie::None);
  BanSet bans(g, s, o);
  // Which arcs each node gets, as the loop below writes them (its sink
  // ties, then its weight edge and one edge per user unless it is tied
  // whole to the sink).
  enum class Shape : uint8_t { None, SinkIn, SinkOutThenIn, Weighted, SinkOutWeighted };
  auto shape_of = [&](NodeId id) {
    const Node& n = g[id];
    if (n.op == OpKind::Output) return Shape::None;
    const bool sink_out = c.required_bw[id] != 0;
    if (sink_out && c.tangent_closure[id]) return Shape::SinkIn;  // backward-only
    if (must_recompute(n)) return sink_out ? Shape::SinkOutThenIn : Shape::SinkIn;
    return sink_out ? Shape::SinkOutWeighted : Shape::Weighted;
  };
  // First the bans (they read the graph, never the arcs) and the exact arc
  // count, then the arcs into a block of that size, the ban arcs last.
  // Reserved for the most arcs a node could have (4 + its users), the block
  // would be more than twice what is written.
  size_t arc_count = 0;
  for (NodeId id = 0; id < count; ++id) {
    const Shape shape = shape_of(id);
    switch (shape) {
      case Shape::None: continue;
      case Shape::SinkIn: ++arc_count; continue;
      case Shape::SinkOutThenIn: arc_count += 2; continue;
      case Shape::Weighted:
      case Shape::SinkOutWeighted: break;
    }
    const Node& n = g[id];
    arc_count += (shape == Shape::SinkOutWeighted ? 2 : 1) + g.users[id].size();
    if (n.input_kind == InputKind::Primal) bans.try_ban(id, BanReason::PrimalInput);
    if (n.input_kind == InputKind::FwdSeed) bans.try_ban(id, BanReason::ForwardSeed);
    if (c.required_fw[id]) {
      const BanReason why = should_ban_recomputation(g, c, id, s, o, ops);
      if (why != BanReason::None) bans.try_ban(id, why);
    }
  }
  if (o.used_far_apart) ban_used_far_apart(g, c, ops, bans);
  if (o.long_fusible_chains) ban_long_fusible_chains(g, c, ops, bans);
  net.arcs.reserve(arc_count + bans.order().size());

  for (NodeId id = 0; id < count; ++id) {
    const Shape shape = shape_of(id);
    if (shape == Shape::None) continue;
    if (shape == Shape::SinkOutThenIn || shape == Shape::SinkOutWeighted) {
      // A gradient output computed from forward values: the backward needs
      // its value, which may be saved or recomputed.
      net.arcs.push_back({FlowNetwork::out(id), FlowNetwork::kSink, kInfinite});
      net.sink[id] = SinkTie::Out;
    }
    if (shape == Shape::SinkIn || shape == Shape::SinkOutThenIn) {
      // Backward-only (it runs in the backward, whatever it costs), or a
      // checkpointing policy's MUST/PREFER_RECOMPUTE: always recomputed.
      net.arcs.push_back({FlowNetwork::in(id), FlowNetwork::kSink, kInfinite});
      net.sink[id] = SinkTie::In;
      continue;
    }
    const auto w = node_weight(g, c, id, s, ops);
    net.weight_arc[id] = static_cast<int32_t>(net.arcs.size());
    net.arcs.push_back({FlowNetwork::in(id), FlowNetwork::out(id), w ? *w : kInfinite});
    for (NodeId u : g.users[id]) net.arcs.push_back({FlowNetwork::out(id), FlowNetwork::in(u), kInfinite});
  }

  net.banned.assign(count, BanReason::None);
  for (NodeId id : bans.order()) {
    net.banned[id] = bans.reason(id);
    net.arcs.push_back({FlowNetwork::kSource, FlowNetwork::in(id), kInfinite});
  }
  net.ban_order = bans.order();
  net.arcs_distinct = true;
  return net;
}

}  // namespace pt
