// Which nodes mutate an input, as torch._inductor.pattern_matcher's
// is_mutation_op decides (CSE's mutation regions, docs/design.md 3.2), and which
// return the very tensor they mutate (in-place ops, for output aliasing).
#pragma once

#include <string_view>

#include "graph/graph.h"

namespace pt {

// An ATen-style operator overload ("aten.copy_.default", "prims.iota.default"),
// as opposed to a Python callable ("operator.getitem", "torch.sym_float") or a
// higher-order op ("higher_order.with_effects"), which have no schema.
bool is_operator_overload(std::string_view target);
// The same for a validated node, from its interned packet and the target's
// length only: per-node loops on 10^6 nodes missed the cache on every target
// string (1% of the run).
bool is_operator_overload(const Node& n);

// The counter of CSE's mutation regions steps at these nodes. Overloads: the
// schema mutates an input (Node::is_mutable), plus two inductor ops whose
// schema is known to be wrong. Callables without a schema: their name looks
// in-place or stateful (PyTorch's regex: trailing "_", or a "set", "enter",
// "exit" or "seed" word, not inside dunders), or they get an `out=` tensor.
bool is_mutation_node(const Graph& g, NodeId id);

// In-place ATen ops (packet name ending in a single "_", e.g. aten.copy_,
// aten.add_) return their first argument: the result shares its storage.
bool returns_first_arg_storage(const Node& n);

}  // namespace pt
