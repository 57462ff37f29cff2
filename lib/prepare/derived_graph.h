// The prepared joint graph as a derived graph: the nodes kept by dead-code
// elimination and CSE, every node reference rewritten to the kept node of
// its CSE merge. It shares the joint graph's records; only the nodes whose
// references change (and, later, whose recompute tag changes) are copied,
// into Graph::overlay. The result is what validating a rebuilt message
// would give (same nodes, inputs, users, outputs, primals, names), without
// copying a million-node graph.
#pragma once

#include <memory>
#include <vector>

#include "graph/graph.h"

namespace pt {

struct DerivedGraph {
  Graph graph;
  std::shared_ptr<RecordStore> overlay;  // the same object as graph.overlay, writable
};

// The nodes with `keep[id]`, in graph order; references rewritten to
// `kept_as[ref]`, which must be kept. Throws std::logic_error otherwise.
DerivedGraph derive_graph(const Graph& g, const Flags& keep, const std::vector<NodeId>& kept_as);

// The same graph, built from g's own nodes: they move down into place (a
// kept node's id never grows) instead of being copied, and g's users are
// freed first. At 10^6 nodes that is the copy of every node and its input
// lists, ~0.3 GB at the peak of preparation. Afterwards g keeps its records,
// source, packets and name index; its nodes, users, outputs and primals
// are empty.
DerivedGraph derive_graph_consuming(Graph& g, const Flags& keep, const std::vector<NodeId>& kept_as);

// Sets the recompute tag of `id` in both its Node and its record (copied
// into the overlay first when it still lives in the shared records).
void set_recompute_tag(DerivedGraph& d, NodeId id, Recompute tag, const std::string& text);

}  // namespace pt
