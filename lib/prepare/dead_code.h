// Dead-code elimination (docs/design.md section 3, rule 1), as torch.fx's
// Graph.eliminate_dead_code decides: a node is live when it is impure
// (Node::impure: placeholders, mutating ops, nondeterministic_seeded ops,
// side-effect functions), when it is the output node, or when a live node
// uses it. Unused get_attr nodes are therefore dead. The same rule is applied
// to every sub-graph extracted later (forward, backward), so each form here
// works without a rebuilt Graph. All forms are iterative and linear.
#pragma once

#include <vector>

#include "graph/graph.h"

namespace pt {

// The whole joint graph: roots are the impure nodes and the output node.
Flags live_nodes(const Graph& g);

// A sub-graph of `g`: only nodes with `present[id]` exist there (a user that
// is not present does not keep its input alive); `roots` are the sub-graph's
// outputs, inputs and whatever else must survive (the caller adds the impure
// present nodes if the sub-graph keeps them). Relies on `g`'s topological
// order, so one reverse pass suffices.
Flags live_nodes(const Graph& g, const Flags& present, const Flags& roots);

// Any graph given as a user adjacency (users[n] = the nodes reading n, in any
// order, any numbering): a node is live when it is a root or some live node
// uses it. Works without topological order (a breadth-first walk against the
// edges).
Flags live_from_roots(const std::vector<std::vector<NodeId>>& users, const Flags& roots);

}  // namespace pt
