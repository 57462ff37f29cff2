// Hand-written test graphs are often forward fragments: a few inputs, some
// ops, outputs that are all forward outputs. Validation reads a joint graph,
// whose outputs end with one gradient per primal input; this pads a
// fragment's output list with `none` gradients up to that count.
#pragma once

#include <cstdint>
#include <memory>

#include "graph/validate.h"

namespace pt::test {

inline void pad_none_gradients(proto::Graph& g) {
  // The primals as validation counts them (the gradient rule is the one
  // rule a partition graph is spared).
  ValidateOptions fragment;
  fragment.partition_graph = true;
  const auto copy = std::make_shared<proto::Graph>(g);
  const auto primals = static_cast<int64_t>(validate(copy, "fragment", fragment).primals.size());
  proto::Node& output = *g.mutable_nodes(g.nodes_size() - 1);
  if (output.args_size() == 0) output.add_args()->mutable_list();
  auto* items = output.mutable_args(0)->mutable_list()->mutable_items();
  for (int64_t k = items->size() - g.num_fwd_outputs(); k < primals; ++k) items->Add()->set_none(true);
}

}  // namespace pt::test
