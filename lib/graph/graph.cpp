#include "graph/graph.h"

namespace pt {

NodeId Graph::find(std::string_view name) const {
  if (!by_name) return kNoNode;
  const NodeId id = by_name->find(name);
  return id == kNoNode || by_name_remap.empty() ? id : by_name_remap[static_cast<size_t>(id)];
}

std::vector<std::vector<NodeId>> distinct_users(const std::vector<Node>& nodes) {
  std::vector<std::vector<NodeId>> users(nodes.size());
  for (NodeId id = 0; id < static_cast<NodeId>(nodes.size()); ++id) {
    for (NodeId in : nodes[id].inputs) {
      auto& u = users[in];
      if (u.empty() || u.back() != id) u.push_back(id);
    }
  }
  return users;
}

std::string_view packet_of(std::string_view target) {
  // Python callables (operator.mul, math.ceil, torch.sym_float,
  // torch.fx.experimental.sym_node.<lambda>) and higher-order ops are their
  // own packet, as PyTorch's get_aten_target returns them unchanged.
  for (std::string_view prefix : {"operator.", "builtins.", "math.", "torch.", "higher_order."}) {
    if (target.starts_with(prefix)) return target;
  }
  // Operator overloads are namespace.packet.overload: drop the overload.
  const auto first = target.find('.');
  const auto last = target.rfind('.');
  if (first == std::string_view::npos || first == last) return target;
  return target.substr(0, last);
}

}  // namespace pt
