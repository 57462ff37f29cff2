// `dot`: a partition as a Graphviz graph. Saved values, recomputed nodes,
// banned nodes, forward-only and backward-only nodes each have their own
// style; the cut (each saved value's edges into the backward) is drawn as
// thick red edges labelled with the bytes saved; a legend explains it all.
// Large graphs are drawn as the neighbourhood of one node.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"

namespace pt {

struct DotSelection {
  std::vector<NodeId> nodes;  // graph order
  NodeId around = kNoNode;    // the centre, when drawing a neighbourhood
  int depth = 0;
};

// Every node of the graph (the output node aside), or with `around` those
// within `depth` edges of it in either direction. Throws InputError when
// `around` is not a node (naming the graph) or when more than `max_nodes`
// would be drawn (with a hint: --around NODE --depth N, or --max-nodes).
DotSelection select_dot_nodes(const Graph& g, const std::string& around, int depth, size_t max_nodes);

void write_dot(std::ostream& out, const Graph& g, const PartitionResult& r, const DotSelection& selection);

}  // namespace pt
