#include "partition/default_partition.h"

#include <algorithm>

#include "graph/errors.h"
#include "partition/ban_heuristics.h"
#include "graph/printable.h"

namespace pt {

namespace {

void append_unique(std::vector<NodeId>& list, Flags& seen, NodeId id) {
  if (!seen[id]) {
    seen[id] = true;
    list.push_back(id);
  }
}

bool is_multi_output(const Graph& g, NodeId id) {
  const auto& users = g.users[id];
  return !users.empty() && std::all_of(users.begin(), users.end(),
                                       [&](NodeId u) { return g[u].target == "operator.getitem"; });
}

bool skipped_side_effect(const Node& n) {
  // Safe to duplicate, so never saved: assertions and profiler ranges.
  return n.packet == "aten._assert_scalar" || n.packet.starts_with("profiler._record_function");
}

}  // namespace

DefaultPartition default_partition(const Graph& g) {
  const NodeId count = g.size();
  // Forward = every non-tangent node up to the last node tagged is_forward,
  // the last primal or the last forward seed.
  NodeId last = kNoNode;
  for (NodeId id = 0; id < count; ++id) {
    const Node& n = g[id];
    if (n.tag == PartitionerTag::IsForward || n.input_kind == InputKind::Primal || n.input_kind == InputKind::FwdSeed) {
      last = id;
    }
  }
  if (last == kNoNode) throw InputError(g.source + ": the graph has no forward node (no primal, seed or is_forward tag)");
  Flags forward(count, false);
  for (NodeId id = 0; id <= last; ++id) {
    forward[id] = g[id].input_kind != InputKind::Tangent && g[id].op != OpKind::Output;
  }

  DefaultPartition out;
  Flags seen_value(count, false), seen_sym(count, false);
  for (NodeId id = 0; id < count; ++id) {
    if (!forward[id]) continue;
    const Node& n = g[id];
    if (skipped_side_effect(n)) continue;
    if (n.value_kind == ValueKind::Sym) {
      append_unique(out.saved_sym_nodes, seen_sym, id);
      continue;
    }
    if (is_multi_output(g, id)) continue;  // its getitems are saved instead
    if (n.recompute == Recompute::MustSave || (n.impure && n.op != OpKind::Placeholder) ||
        n.value_kind == ValueKind::Opaque) {
      append_unique(out.saved_values, seen_value, id);
      continue;
    }
    if (n.value_kind != ValueKind::Tensor && n.op == OpKind::CallFunction) {
      throw InputError(g.source + ": node '" + printable(n.name) + "': val is not a tensor, but the default partition saves it");
    }
    std::vector<NodeId> backward_users;
    for (NodeId u : g.users[id]) {
      if (!forward[u]) backward_users.push_back(u);
    }
    const bool sizes_only = std::all_of(backward_users.begin(), backward_users.end(),
                                        [&](NodeId u) { return g[u].value_kind == ValueKind::Sym; });
    if (sizes_only) {
      // The backward needs only sizes: save those, not the tensor.
      for (NodeId u : backward_users) append_unique(out.saved_sym_nodes, seen_sym, u);
      continue;
    }
    if (!must_recompute(n)) append_unique(out.saved_values, seen_value, id);
  }
  return out;
}

}  // namespace pt
