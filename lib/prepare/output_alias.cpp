#include "prepare/output_alias.h"

#include <array>
#include <cstddef>
#include <string_view>
#include <unordered_set>

#include "prepare/mutation.h"

namespace pt {

namespace {

bool is_tensor(const Node& n) { return n.value_kind == ValueKind::Tensor; }

// Tensor nodes read by the output node.
std::vector<NodeId> tensor_outputs(const Graph& g, const Flags& present) {
  std::vector<NodeId> out;
  for (NodeId in : g[g.output_node()].inputs) {
    if (present[in] && is_tensor(g[in])) out.push_back(in);
  }
  return out;
}

// The node passed as args[0], if it is a node reference.
NodeId first_arg_node(const Graph& g, NodeId id) {
  return g[id].first_arg_is_node ? g[id].positional_inputs.front() : kNoNode;
}

// Multi-output ops whose results are views of their input. PyTorch's view
// class lists only aten.split among them; the rest alias just the same.
// Used only when the input has no storage ids (exporters that record them
// make this list irrelevant).
bool is_tuple_view(const Node& n, const OpClasses& ops) {
  constexpr std::array<std::string_view, 8> kTupleViews{
      "aten.split",        "aten.split_with_sizes",        "aten.unbind",       "aten.chunk",
      "aten.tensor_split", "aten.unsafe_split",            "aten.unsafe_chunk", "aten.unsafe_split_with_sizes"};
  if (ops.is_view(n)) return true;
  for (std::string_view p : kTupleViews) {
    if (n.packet == p) return true;
  }
  return false;
}

Flags by_storage_ids(const Graph& g, const Flags& present) {
  std::unordered_set<int64_t> storages;
  Flags alias(static_cast<size_t>(g.size()), false);
  for (NodeId out : tensor_outputs(g, present)) {
    if (g[out].has_storage) storages.insert(g[out].storage);
    alias[out] = true;
  }
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!present[id] || !is_tensor(g[id])) continue;
    if (g[id].has_storage && storages.count(g[id].storage)) alias[id] = true;
  }
  return alias;
}

class UnionFind {
 public:
  explicit UnionFind(NodeId count) : parent_(static_cast<size_t>(count)) {
    for (NodeId i = 0; i < count; ++i) parent_[i] = i;
  }
  NodeId find(NodeId x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];  // path halving
      x = parent_[x];
    }
    return x;
  }
  void unite(NodeId a, NodeId b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[a < b ? b : a] = a < b ? a : b;
  }

 private:
  std::vector<NodeId> parent_;
};

Flags by_structure(const Graph& g, const Flags& present, const OpClasses& ops) {
  UnionFind storage(g.size());
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g[id];
    if (!present[id] || n.op != OpKind::CallFunction || !is_tensor(n)) continue;
    NodeId base = kNoNode;
    if (ops.is_view(n) || returns_first_arg_storage(n)) {
      base = first_arg_node(g, id);
    } else if (n.packet == "operator.getitem") {  // a callable: its own packet
      const NodeId source = first_arg_node(g, id);
      if (source != kNoNode && is_tuple_view(g[source], ops)) base = first_arg_node(g, source);
    }
    if (base != kNoNode && present[base]) storage.unite(id, base);
  }
  // The outputs' storage roots, flagged by node: a hash set of them, probed
  // once per node, was half of this pass at 10^6 nodes (122-150 -> 62-72 ms).
  Flags output_root(static_cast<size_t>(g.size()), false);
  for (NodeId out : tensor_outputs(g, present)) output_root[storage.find(out)] = true;
  Flags alias(static_cast<size_t>(g.size()), false);
  for (NodeId id = 0; id < g.size(); ++id) {
    alias[id] = present[id] && is_tensor(g[id]) && output_root[storage.find(id)];
  }
  return alias;
}

}  // namespace

Flags aliases_output(const Graph& g, const Flags& present, const OpClasses& ops) {
  for (NodeId id = 0; id < g.size(); ++id) {
    if (present[id] && is_tensor(g[id]) && g[id].has_storage) {
      return by_storage_ids(g, present);
    }
  }
  return by_structure(g, present, ops);
}

}  // namespace pt
