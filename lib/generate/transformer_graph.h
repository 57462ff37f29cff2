// Synthetic joint graphs of a GPT-style transformer: token and position
// embeddings, `layers` pre-norm blocks (layer norm, attention with explicit
// matmuls and softmax under a causal mask, layer norm, GELU MLP), a final
// layer norm, a tied LM head and cross-entropy loss, then the matching
// backward, in the shape AOTAutograd hands to the partitioner: primals then
// one tangent, the loss as the single forward output, one gradient per
// primal (none for token ids and the mask buffer), parameters listed in
// static_lifetime_input_indices. With `checkpoint`, each block's forward ops
// are tagged PREFER_RECOMPUTE with ac_graph_id = block + 1 (the residual adds
// stay untagged) and its matmuls MUST_SAVE, as selective activation
// checkpointing does. About 220 nodes per layer; the output is deterministic.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "graph/schema.h"

namespace pt::gen {

struct TransformerSpec {
  int64_t layers = 2;
  int64_t hidden = 768;
  int64_t seq = 1024;
  int64_t batch = 4;
  int64_t heads = 12;
  int64_t vocab = 50257;
  std::string dtype = "bfloat16";  // parameters and activations; norms and softmax run in float32
  bool checkpoint = false;
};

// Throws std::invalid_argument when the spec is inconsistent (hidden not a
// multiple of heads, a non-positive size, an unknown or non-float dtype).
void check_spec(const TransformerSpec& spec);

std::shared_ptr<proto::Graph> transformer_graph(const TransformerSpec& spec);

}  // namespace pt::gen
