// Checking a node's `val` and reading its sizes into the Node (validate.h's
// rules for values: known dtypes, dims >= 0, byte sizes below 2^62, stride,
// shape_expr and stride_expr lengths, symbolic expressions (sym_expr.h) and
// constant entries equal to their hints, symbol kinds, devices and opaque
// type names without control characters, tuple nesting depth).
#pragma once

#include <string>

#include "graph/graph.h"
#include "graph/schema.h"

namespace pt {

// Sets n.value_kind, n.size_bytes (numel x itemsize; a tuple's direct tensor
// items summed; 1 for a symbol), n.numel, n.sym_kind, n.has_storage and n.storage from
// `v`, the value of node `pn`; throws InputError naming `source`, the node
// and the field at the first problem.
void read_node_value(const proto::Node& pn, const proto::Value& v, const std::string& source, int max_nesting,
                     Node& n);

}  // namespace pt
