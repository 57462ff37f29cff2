// How many ops a fused node adds to an inlined expression, as Inductor's
// OpCounterCSE counts them: the fusion groups' realize_large_expressions
// rule (bandwidth_options.h) realizes a value whose expression grows past
// Inductor's limit.
#pragma once

#include "analysis/node_op_classes.h"
#include "graph/graph.h"

namespace pt {

// None for a view, getitem or clone (indexing, or the loaded value itself),
// one for a constant, iota or dtype conversion, ten per window tap for a
// pooling gradient, else one plus one per number among its arguments
// (ne(x, -1) is two), at most 100. Equal nodes are one
// node here: prepare's CSE merged them.
int inductor_op_weight(const Graph& g, const NodeOpClasses& ops, NodeId id);

}  // namespace pt
