// A set of op packets ("aten.mm"). Per-node questions go through
// NodeOpClasses (analysis/node_op_classes.h), which asks a set once per
// distinct packet of a graph, so a standard hash set costs nothing
// measurable. The transparent hash lets contains() and count() take a
// std::string_view (Node::packet) without building a string.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace pt {

struct PacketHash {
  using is_transparent = void;
  size_t operator()(std::string_view packet) const { return std::hash<std::string_view>{}(packet); }
};

using PacketSet = std::unordered_set<std::string, PacketHash, std::equal_to<>>;

}  // namespace pt
