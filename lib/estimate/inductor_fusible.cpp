#include "estimate/inductor_fusible.h"

#include <algorithm>

namespace pt {

bool tagged_pointwise(const Graph& g, NodeId id) { return g[id].pointwise_tag; }

bool copies_into_input(const Graph& g, NodeId id) {
  const Node& n = g[id];
  return n.packet == "aten.copy_" && n.positional_inputs.size() == 2 &&
         g[n.positional_inputs[0]].op == OpKind::Placeholder;
}

}  // namespace pt
