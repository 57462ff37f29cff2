#include "estimate/inductor_fusible.h"

#include <algorithm>

namespace pt {

bool tagged_pointwise(const Graph& g, NodeId id) { return g[id].pointwise_tag; }

bool is_slice_scatter(const Graph& g, NodeId id) {
  const std::string_view packet = g[id].packet;
  return packet == "aten.select_scatter" || packet == "aten.slice_scatter";
}

bool copies_into_input(const Graph& g, NodeId id) {
  const Node& n = g[id];
  return n.packet == "aten.copy_" && n.positional_inputs.size() == 2 &&
         g[n.positional_inputs[0]].op == OpKind::Placeholder;
}

}  // namespace pt
