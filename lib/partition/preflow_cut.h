// LEMON's Preflow on exact integer capacities of any width, and the cut
// PyTorch takes from its result (docs/design.md section 4): the sink side is
// every vertex that can still reach the sink in the residual network. That
// set is the smallest sink side among all minimum cuts, so it does not
// depend on which maximum flow the solver found. LEMON's own minCut() may
// put more vertices on the sink side, and is not used.
#pragma once

#include <lemon/bits/default_map.h>

#include "partition/capacity.h"

namespace lemon {

// LEMON keeps values of a class type in an ArrayMap, which calls
// std::allocator's construct and destroy, both gone in C++20. The VectorMap
// it uses for numbers holds GMP integers as well.
template <typename Graph, typename Item>
struct DefaultMapSelector<Graph, Item, pt::FlowValue> {
  typedef VectorMap<Graph, Item, pt::FlowValue> Map;
};

}  // namespace lemon

#include <lemon/preflow.h>
#include <lemon/smart_graph.h>

#include <cstdint>
#include <vector>

#include "graph/flags.h"

namespace pt {

enum class PreflowRun : uint8_t {
  MaximumPreflow,  // runMinCut(): the first phase only, enough for the cut
  MaximumFlow,     // run(): both phases, a maximum flow
};

// Runs Preflow from `source` to `sink` and sets sink_side[g.id(v)] for every
// node v that can reach the sink through arcs with residual capacity (an arc
// below its capacity forwards, an arc with positive flow backwards). Returns
// the maximum flow value. `Value` is int64_t or FlowValue; the caller picks
// an infinite capacity that no excess, flow or residual capacity can
// overflow.
//
// Why the first phase is enough. It ends with a maximum preflow f: the flow
// into the sink is the maximum flow value F, and every node still holding
// excess has been lifted to the top level, from which the sink cannot be
// reached. Let T be the nodes that reach the sink in f's residual network
// and X the sink side of any minimum cut. The net flow into X is F plus
// the excess inside X, and at most X's capacity, which is F: so the arcs
// into X are saturated, the arcs out of X carry nothing, and no residual
// arc enters X, hence T is inside X. T holds no excess, and no residual arc
// enters it, so its capacity is F: T is itself a minimum cut, the smallest
// sink side, the same set a maximum flow gives. The property tests compare
// it with run()'s (test/partition/min_cut_test.cpp). PyTorch does the same:
// networkx's minimum_cut runs preflow_push with value_only=True (its first
// phase) and searches back from the sink.
template <class Value>
Value preflow_sink_side(const lemon::SmartDigraph& g, const lemon::SmartDigraph::ArcMap<Value>& capacity,
                        lemon::SmartDigraph::Node source, lemon::SmartDigraph::Node sink, PreflowRun run,
                        Flags& sink_side) {
  using Digraph = lemon::SmartDigraph;
  lemon::Preflow<Digraph, Digraph::ArcMap<Value>> preflow(g, capacity, source, sink);
  if (run == PreflowRun::MaximumFlow) {
    preflow.run();
  } else {
    preflow.runMinCut();
  }
  sink_side.assign(static_cast<size_t>(g.nodeNum()), false);
  std::vector<Digraph::Node> queue{sink};
  sink_side[static_cast<size_t>(g.id(sink))] = true;
  auto reach = [&](Digraph::Node v) {
    Flag& mark = sink_side[static_cast<size_t>(g.id(v))];
    if (!mark) {
      mark = true;
      queue.push_back(v);
    }
  };
  for (size_t head = 0; head < queue.size(); ++head) {
    const Digraph::Node w = queue[head];
    for (Digraph::InArcIt a(g, w); a != lemon::INVALID; ++a) {
      if (preflow.flow(a) < capacity[a]) reach(g.source(a));
    }
    for (Digraph::OutArcIt a(g, w); a != lemon::INVALID; ++a) {
      if (preflow.flow(a) > 0) reach(g.target(a));
    }
  }
  return preflow.flowValue();
}

}  // namespace pt
