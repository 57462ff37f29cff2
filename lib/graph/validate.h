// Validation: turns a parsed graph message into the indexed in-memory Graph,
// or throws InputError with one line naming the file, node and field:
//   graph.json: node 'exp': val.tensor.shape[1] = -5 is negative
// Checked: unique names without control characters; more than the output
// node; known op kinds; every referenced node exists and
// comes earlier (so the graph is topologically ordered and acyclic); exactly
// one output node, last; num_fwd_outputs within the output list;
// static_lifetime_input_indices within the primals; known dtypes, dims >= 0,
// byte sizes without overflow; known recompute and partitioner tags; arg and
// value nesting depth bounded; node count bounded; memory_budget in [0, 1].
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "graph/graph.h"
#include "graph/schema.h"

namespace pt {

struct ValidateOptions {
  int64_t max_nodes = 20'000'000;  // reject larger inputs (resource limit)
  int max_nesting = 32;            // args lists / value tuples nested deeper are rejected
  // A graph of only the output node has nothing to partition and is refused
  // as a joint graph; as a partition's forward or backward it is valid (a
  // joint graph without tangents and gradients has an empty backward).
  bool allow_output_only = false;
};

// The Graph keeps `proto` alive: its nodes' text fields view the message's
// strings, and Graph::record returns its nodes.
Graph validate(std::shared_ptr<const proto::Graph> proto, const std::string& source,
               const ValidateOptions& options = {});

}  // namespace pt
