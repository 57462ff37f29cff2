// Validation: turns a parsed graph message into the indexed in-memory Graph,
// or throws InputError with one line naming the file, node and field:
//   graph.json: node 'exp': val.tensor.shape[1] = -5 is negative
// Checked: unique names without control characters; more than the output
// node; known op kinds; every referenced node exists and
// comes earlier (so the graph is topologically ordered and acyclic); exactly
// one output node, last; num_fwd_outputs within the output list;
// static_lifetime_input_indices within the primals; known dtypes, dims >= 0,
// byte sizes without overflow; symbolic expressions well formed
// (sym_expr.h); a val on every node but the output node, get_attr nodes and
// aten._assert_scalar.default (as PyTorch's partitioner asks); no control
// characters (C0, DEL, C1) in names, targets and other identifier fields;
// known recompute and partitioner tags; arg and value nesting depth bounded;
// node count bounded; memory_budget in [0, 1]; getitems and, in a joint
// graph, one gradient per primal (semantic_check.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "graph/graph.h"
#include "graph/record_store.h"
#include "graph/schema.h"

namespace pt {

inline constexpr int kMaxNesting = 16;

struct ValidateOptions {
  int64_t max_nodes = 20'000'000;  // reject larger inputs (resource limit)
  // Args lists and value tuples nested deeper are rejected (docs/user_guide.md,
  // File formats). Real graphs nest one or two deep; 16 stays below what the
  // protobuf parsers' own recursion limit lets through, so a deeper file is
  // refused with its node and field named rather than by the parser.
  int max_nesting = kMaxNesting;
  // The graph is a partition's forward or backward, not a joint graph: it
  // may be only its output node (a joint graph without tangents and
  // gradients has an empty backward), and its outputs are not forward
  // outputs then one gradient per primal.
  bool partition_graph = false;
};

// The Graph keeps the split graph's header and records: Node::name views
// the records' names, and Graph::record decodes them.
Graph validate(SplitGraph graph, const std::string& source, const ValidateOptions& options = {});
// A whole message (built in memory, or read by read_graph): split
// (record_store.h), then validated as above.
Graph validate(std::shared_ptr<const proto::Graph> proto, const std::string& source,
               const ValidateOptions& options = {});

}  // namespace pt
