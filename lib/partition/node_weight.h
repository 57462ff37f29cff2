// The cost of saving a node: the capacity of its X_in -> X_out edge
// (docs/design.md section 4, "Weights").
#pragma once

#include <cstdint>
#include <optional>

#include "analysis/classify.h"
#include "analysis/node_op_classes.h"
#include "graph/graph.h"
#include "partition/capacity.h"
#include "settings/settings.h"

namespace pt {

// Whether a node is written to memory anyway: a placeholder, or a node with a
// user it cannot fuse with (the output node fuses with nothing). A node with
// no users is not materialized.
bool is_materialized(const Graph& g, NodeId id, const NodeOpClasses& ops);
// The same, looking the classes up (one node: explanations).
bool is_materialized(const Graph& g, NodeId id, const OpClasses& ops);

// The weight, exactly as PyTorch computes it in IEEE double:
// trunc(size * base ** max(min(dist_from_bw, cap), 1)), doubled when not
// materialized. nullopt = infinite (the value cannot be saved: tuples, none,
// opaque objects, views under recompute_views). The weight is an integer
// held exactly in a double, at any size (capacity.h). Throws InputError when
// it overflows a double: PyTorch's own float arithmetic fails there too
// (OverflowError), except for a weight of 2^1023 or more that only its
// doubling overflows.
// `ops`: the graph's nodes classified by s.op_classes.
std::optional<Capacity> node_weight(const Graph& g, const Classification& c, NodeId id, const Settings& s,
                                    const NodeOpClasses& ops);

}  // namespace pt
