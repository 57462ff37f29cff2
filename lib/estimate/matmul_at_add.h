// Where Inductor runs a matmul whose only reader is an add: at the add.
// Its post-grad pass rewrites add(mm(a, b), c) into addmm(c, a, b)
// (torch/_inductor/fx_passes/post_grad.py, `addmm` with
// is_valid_addmm_fusion): the matmul then runs where the add is, and what
// it reads stays live until there. BERT ties its input and output
// embeddings: it sums the output layer's weight gradient, a matmul of the
// logits' gradient computed right after the loss, with the embedding's
// gradient at the very end of the backward, and Inductor's addmm holds the
// logits' gradient through the whole backward (bert_mlm on the H100: the
// 0.50 GB logits buffer, which the gradient takes over, is live at the
// measured peak, in the last layer's attention backward; freed after its
// matmul, the simulation stood 0.55 GB below the measurement there).
#pragma once

#include <vector>

#include "analysis/node_op_classes.h"
#include "graph/graph.h"

namespace pt {

// Moves each matmul of `order` (a pass's nodes in the order they run) that
// Inductor runs at an add to just before that add. A matmul qualifies when
// it is an aten.mm whose only reader in the pass is an aten.add of two
// tensors, the other one of the matmul's dtype and expandable to its
// shape, and nothing in the pass reads the add's value with a pointwise op
// or a reduction, through views (Inductor keeps an add that such a reader
// can fuse: should_prefer_unfused_addmm); `kept` marks what the pass
// returns, which the matmul may not be.
void run_matmuls_at_their_adds(const Graph& g, const NodeOpClasses& ops, const Flags& kept,
                               std::vector<NodeId>& order);

}  // namespace pt
