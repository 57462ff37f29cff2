#include "analysis/subgraph.h"

#include <cstdint>

namespace pt {

namespace {
bool mutates(const Node& n) { return n.is_mutable || n.packet == "higher_order.with_effects"; }
}  // namespace

bool must_be_in_backward(const Node& n) {
  if (n.tag == PartitionerTag::MustBeInBackward) return true;
  return n.tag == PartitionerTag::IsBackward && mutates(n);
}

bool must_be_in_forward(const Node& n) {
  if (n.tag == PartitionerTag::MustBeInForward) return true;
  return mutates(n) && n.tag != PartitionerTag::IsBackward && n.tag != PartitionerTag::MustBeInBackward;
}

Subgraph extract_subgraph(const Graph& g, const std::vector<NodeId>& inputs, const std::vector<NodeId>& outputs,
                          Pass pass) {
  const NodeId count = g.size();
  Subgraph s;
  s.is_input.assign(count, false);
  for (NodeId in : inputs) s.is_input[in] = true;
  std::vector<uint8_t> valid(static_cast<size_t>(count), 0);  // bytes: read per input edge (bits cost shifts)
  for (NodeId id = 0; id < count; ++id) {
    const Node& n = g[id];
    if (s.is_input[id]) {
      valid[id] = 1;
      continue;
    }
    if (pass != Pass::Backward && must_be_in_backward(n)) continue;
    if (pass != Pass::Forward && must_be_in_forward(n)) continue;
    switch (n.op) {
      case OpKind::Placeholder:
      case OpKind::Output:
        break;
      case OpKind::GetAttr:
        valid[id] = 1;
        break;
      case OpKind::CallFunction: {
        bool ok = true;
        for (NodeId in : n.inputs) ok = ok && valid[in] != 0;
        valid[id] = ok ? 1 : 0;
        break;
      }
    }
  }
  // Dead-code elimination in the new graph: roots are the outputs, the inputs
  // (placeholders there) and impure valid nodes; liveness flows to inputs.
  s.keep.assign(count, false);
  std::vector<uint8_t> is_output(static_cast<size_t>(count), 0);
  for (NodeId out : outputs) {
    if (out == kNoNode) continue;
    if (!valid[out] && !s.invalid_output) s.invalid_output = out;
    is_output[out] = 1;
  }
  for (NodeId id = count - 1; id >= 0; --id) {
    if (!valid[id]) continue;
    bool live = s.is_input[id] || is_output[id] || g[id].impure;
    if (!live) {
      for (NodeId u : g.users[id]) {
        // An input is a placeholder in the sub-graph: it reads nothing.
        if (s.keep[u] && !s.is_input[u]) {
          live = true;
          break;
        }
      }
    }
    s.keep[id] = live;
  }
  return s;
}

}  // namespace pt
