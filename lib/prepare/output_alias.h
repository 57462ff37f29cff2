// Which nodes' storage aliases a graph output. PyTorch's fx_graph_cse never
// merges them: two outputs that went through identical ops are still separate
// tensors in eager mode (docs/design.md 3.2). Only tensor-valued nodes can alias
// (PyTorch's checkable_node).
#pragma once

#include <vector>

#include "settings/op_classes.h"
#include "graph/graph.h"

namespace pt {

// `present`: the nodes that exist (after dead-code elimination); others are
// ignored. When any present tensor carries a storage id (TensorMeta.storage),
// the ids decide: a tensor aliases an output when it shares the storage of a
// tensor output (an output without an id aliases only itself). Otherwise
// storages are followed through the graph: view ops (`ops.view`), in-place
// ops (copy_ and friends return their first argument) and getitems of
// split/unbind-style ops share their source's storage.
Flags aliases_output(const Graph& g, const Flags& present, const OpClasses& ops);

}  // namespace pt
