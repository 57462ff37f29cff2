// Writes the message of a graph with nodes removed and merged: the prepared
// joint graph is a new, ordinary graph (validated like any input), so every
// later stage reads it the same way.
#pragma once

#include <memory>
#include <vector>

#include "graph/graph.h"

namespace pt {

// The nodes with `keep[id]`, in graph order, with every node reference
// (args, kwargs, the output list) rewritten to `kept_as[ref]`. Graph-level
// fields are copied unchanged (primals are placeholders and always survive,
// so static_lifetime_input_indices stay valid).
std::shared_ptr<proto::Graph> rebuild_message(const Graph& g, const std::vector<bool>& keep,
                                              const std::vector<NodeId>& kept_as);

}  // namespace pt
