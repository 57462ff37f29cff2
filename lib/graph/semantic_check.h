// Rules over a whole validated graph that a single node's fields cannot
// tell: what a getitem reads, and how the outputs line up with the inputs.
// Each throws InputError with one line naming the file, the node and the
// field:
//
// - operator.getitem takes exactly two positional arguments and no kwargs:
//   a reference to a node whose val is a tuple (PyTorch's multi-output ops;
//   joint graphs index tensors with aten ops, never getitem), and an `int`
//   item index in [0, items). Python itself would also take a negative
//   index or a bool, but AOTAutograd's tracer writes one getitem per item,
//   numbered from 0, so anything else is a graph no PyTorch produced. Its
//   val is of the item's kind (a tensor for a tensor item, ...).
// - A joint graph's outputs are its forward outputs (the first
//   num_fwd_outputs) followed by one gradient (or none) per primal input,
//   in the primals' order, as AOTAutograd lays them out.
#pragma once

#include "graph/graph.h"

namespace pt {

void check_getitems(const Graph& g);

// Only for joint graphs: a partition's forward and backward graphs return
// other things.
void check_gradient_outputs(const Graph& g);

}  // namespace pt
