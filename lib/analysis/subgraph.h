// Which nodes of a joint graph make up a sub-graph with given inputs and
// outputs, as PyTorch's _extract_graph_with_inputs_outputs decides: walk the
// graph in order; the inputs are valid; a call_function is valid when all its
// node inputs are valid; get_attr is valid; other placeholders and nodes that
// must run in the other pass are invalid; then dead-code elimination against
// the outputs (impure nodes and the inputs survive).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace pt {

enum class Pass { Forward, Backward };

// must_be_in_backward: tagged so, or a mutating/effectful op tagged is_backward.
bool must_be_in_backward(const Node& n);
// must_be_in_forward: tagged so, or a mutating/effectful op not tagged for the backward.
bool must_be_in_forward(const Node& n);

struct Subgraph {
  Flags keep;       // per joint node: part of the sub-graph after DCE (inputs included)
  Flags is_input;   // per joint node: one of the given inputs
  // The first output that is not computable from the inputs, if any.
  std::optional<NodeId> invalid_output;
};

Subgraph extract_subgraph(const Graph& g, const std::vector<NodeId>& inputs, const std::vector<NodeId>& outputs,
                          Pass pass);

}  // namespace pt
