#pragma once

#include <vector>

#include "graph/graph.h"
#include "partition/extract.h"

namespace pt {

// The backward's nodes in the order PyTorch runs them: its partitioner
// reorders the backward to mimic the autograd engine, placing each
// recomputed forward node just before its first reader instead of at the
// start (where the joint graph has it). Walks the backward's own nodes in
// graph order and emits each one after its not yet emitted recomputed
// inputs, depth first, with an explicit stack. Without this the simulation
// kept every recomputed value alive from the backward's start: on an MLP
// under a 0.1 budget it predicted 2.36 GB against 1.58 GB measured
// (docs/bandwidth_model.md).
// With `from_first_tangent_reader` (BandwidthOptions::
// backward_order_from_tangents) the walk follows PyTorch's
// reordering_to_mimic_autograd_engine itself: every node from the first one
// that reads a tangent on, in graph order, after what it needs that has not
// run yet (insert_node_in_graph: those in graph order too); a node before
// that reader runs only when a later one needs it. The walk above also
// starts at the values only the backward computes in the forward's region
// (the statistics of a recomputed attention), which pulls the recomputation
// of every layer ahead of the loss backward.
// `bw_input` marks the backward's inputs (placeholders: not emitted);
// the order is appended to `order`.
void append_backward_order(const Graph& g, const Extraction& e, const Flags& bw_input,
                           bool from_first_tangent_reader, std::vector<NodeId>& order);

}  // namespace pt
