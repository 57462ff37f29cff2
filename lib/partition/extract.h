// Extraction of the forward and backward graphs from a cut (docs/design.md
// section 6), as PyTorch's _extract_fwd_bwd_modules: the backward takes the
// saved symbols, saved values and tangents; a saved value the backward never
// reads (after its dead-code elimination) is dropped; saved symbols are
// completed with the bindings of every free symbol of the saved tensors,
// derived symbols and tangents; then both graphs are re-extracted.
#pragma once

#include <string>
#include <vector>

#include "analysis/classify.h"
#include "analysis/subgraph.h"
#include "graph/graph.h"

namespace pt {

struct Extraction {
  std::vector<NodeId> saved_values;     // non-symbols, graph order, unused ones dropped
  std::vector<NodeId> saved_sym_nodes;  // symbol bindings first, then derived symbols
  std::vector<NodeId> dropped;          // chosen by the cut but never read by the backward
  Subgraph forward;                     // keep masks over the joint graph
  Subgraph backward;
  std::vector<NodeId> recomputed;       // call_function nodes in both graphs, graph order
  // The tangents then the backward seeds, graph order: found once (each scan
  // of 10^6 nodes' kinds cost ~25 ms, and the backward's inputs are asked
  // for by extraction, peak memory and the partition writer).
  std::vector<NodeId> grad_inputs;

  // What the forward outputs for the backward: saved values then saved symbols.
  std::vector<NodeId> fw_saved_outputs() const;
  // The backward's inputs: saved symbols, saved values, tangents, backward seeds.
  std::vector<NodeId> bw_inputs() const;
};

// `chosen`: the cut's saved nodes, graph order. Throws InfeasibleError when a
// gradient cannot be computed from what the backward receives. `threads`
// (split_in_two, graph/side_by_side.h) says whether the final forward and
// backward are extracted side by side; the result is the same.
Extraction extract_partition(const Graph& g, const Classification& c, const std::vector<NodeId>& chosen,
                             unsigned threads = 0);
// The same with the saved values and saved symbols given apart, in the order
// the caller decided them (the default partition's order).
Extraction extract_partition(const Graph& g, const Classification& c, const std::vector<NodeId>& values,
                             const std::vector<NodeId>& sym_nodes, unsigned threads = 0);

// Symbols (s17, u3, ...) in a node's value: shapes, strides and storage
// offsets of tensors (and tuple items), or a symbol's expression.
std::vector<std::string> free_symbols(const Graph& g, NodeId id);

}  // namespace pt
