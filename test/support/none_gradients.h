// Hand-written test graphs are often forward fragments: a few inputs, some
// ops, outputs that are all forward outputs. Validation reads a joint graph,
// whose outputs end with one gradient per primal input; this pads a
// fragment's output list with `none` gradients up to that count.
#pragma once

#include <cstdint>

#include "graph/node_words.h"
#include "graph/schema.h"

namespace pt::test {

inline void pad_none_gradients(proto::Graph& g) {
  int64_t primals = 0;
  for (const proto::Node& n : g.nodes()) {
    if (n.op() == "placeholder" && placeholder_input_kind(n.name(), n.target()) == InputKind::Primal) ++primals;
  }
  proto::Node& output = *g.mutable_nodes(g.nodes_size() - 1);
  if (output.args_size() == 0) output.add_args()->mutable_list();
  auto* items = output.mutable_args(0)->mutable_list()->mutable_items();
  for (int64_t k = items->size() - g.num_fwd_outputs(); k < primals; ++k) items->Add()->set_none(true);
}

}  // namespace pt::test
