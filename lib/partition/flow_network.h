// The flow network of one min-cut solve (docs/design.md section 4), in flat
// arrays. Vertex 0 is the source, 1 the sink; node X has X_in = 2 + 2X and
// X_out = 3 + 2X. Capacities are integers held in doubles (capacity.h);
// kInfinite marks infinite edges until the solver replaces it by a sentinel
// above the sum of finite ones.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/classify.h"
#include "analysis/node_op_classes.h"
#include "graph/graph.h"
#include "partition/ban_options.h"
#include "partition/ban_reason.h"
#include "partition/capacity.h"
#include "settings/settings.h"

namespace pt {

enum class SinkTie : uint8_t { None, In, Out };

struct FlowArc {
  int32_t from;
  int32_t to;
  Capacity capacity;  // kInfinite for infinite
};

struct FlowNetwork {
  static constexpr int32_t kSource = 0;
  static constexpr int32_t kSink = 1;
  static int32_t in(NodeId x) { return 2 + 2 * x; }
  static int32_t out(NodeId x) { return 3 + 2 * x; }

  int32_t vertex_count = 2;
  std::vector<FlowArc> arcs;
  // Per node: where in `arcs` its X_in -> X_out edge is, -1 when it has
  // none; weight() reads that edge's capacity.
  std::vector<int32_t> weight_arc;
  std::vector<BanReason> banned;  // per node; None when recomputable
  std::vector<NodeId> ban_order;  // bans in the order they were made
  std::vector<SinkTie> sink;      // per node: which half is tied to the sink
  // Set by build_flow_network, whose arcs are distinct (from, to) pairs by
  // construction: per node at most one sink tie of each half, one weight
  // edge, one edge per distinct user, one ban edge. distinct_arc_count() is
  // then arcs.size(), without counting. Networks read from a DIMACS file may
  // repeat an arc and leave it false.
  bool arcs_distinct = false;

  // The X_in -> X_out capacity of node x (nullopt: no such edge; kInfinite:
  // infinite). Not after release_arcs().
  std::optional<Capacity> weight(NodeId x) const {
    const int32_t a = weight_arc[static_cast<size_t>(x)];
    if (a < 0) return std::nullopt;
    return arcs[static_cast<size_t>(a)].capacity;
  }

  // Vertices that carry at least one arc (what networkx would count), and
  // distinct arcs. After release_arcs(), the counts taken then.
  int64_t used_vertex_count() const;
  int64_t distinct_arc_count() const;

  // For a caller done with the solve (the partition command): counts the
  // vertices and arcs, then frees the arcs and the node weights, which the
  // report stage would otherwise hold beside its own allocations. Bans and
  // sink ties stay. explain reads the weights, so it keeps the whole network.
  void release_arcs();
  bool arcs_released() const { return released_counts_.has_value(); }

 private:
  struct Counts {
    int64_t used_vertices;
    int64_t distinct_arcs;
  };
  std::optional<Counts> released_counts_;
};

FlowNetwork build_flow_network(const Graph& g, const Classification& c, const Settings& s, const BanOptions& o);
// The same, with g's op classes under s.op_classes already looked up (the
// partitioner's, which the report reuses).
FlowNetwork build_flow_network(const Graph& g, const Classification& c, const Settings& s, const BanOptions& o,
                               const NodeOpClasses& ops);

}  // namespace pt
