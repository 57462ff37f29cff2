#include "estimate/backward_order.h"

#include <algorithm>
#include <utility>

namespace pt {

void append_backward_order(const Graph& g, const Extraction& e, const Flags& bw_input,
                           bool from_first_tangent_reader, std::vector<NodeId>& order) {
  const NodeId count = g.size();
  Flags recomputed(count, false), emitted(count, false);
  for (NodeId id : e.recomputed) recomputed[id] = true;
  // The output node is the graph's last (validate.cpp): tested by id, not
  // by reading its Node (a cache miss per edge on large graphs).
  const NodeId output = g.output_node();
  auto in_backward = [&](NodeId id) { return e.backward.keep[id] && !bw_input[id] && id != output; };
  NodeId first_reader = count;  // of a tangent; count: none
  for (NodeId id : e.grad_inputs) {
    if (!from_first_tangent_reader || g[id].input_kind != InputKind::Tangent) continue;
    for (NodeId u : g.users[id]) {
      if (in_backward(u)) first_reader = std::min(first_reader, u);
    }
  }
  if (first_reader < count) {
    std::vector<NodeId> stack, batch;
    for (NodeId root = first_reader; root < count; ++root) {
      if (!in_backward(root) || emitted[root]) continue;
      batch.clear();
      stack.assign(1, root);
      emitted[root] = true;
      while (!stack.empty()) {
        const NodeId id = stack.back();
        stack.pop_back();
        batch.push_back(id);
        for (NodeId in : g[id].inputs) {
          if (in_backward(in) && !emitted[in]) {
            emitted[in] = true;
            stack.push_back(in);
          }
        }
      }
      std::sort(batch.begin(), batch.end());
      order.insert(order.end(), batch.begin(), batch.end());
    }
    // Of the nodes no later one needs, PyTorch keeps the mutations (copy_).
    for (NodeId id = 0; id < first_reader; ++id) {
      if (in_backward(id) && !emitted[id] && g[id].is_mutable) order.push_back(id);
    }
    return;
  }
  std::vector<std::pair<NodeId, size_t>> stack;  // node, next input to visit
  for (NodeId root = 0; root < count; ++root) {
    if (!in_backward(root) || recomputed[root] || emitted[root]) continue;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const auto& inputs = g[id].inputs;
      while (next < inputs.size() && !(in_backward(inputs[next]) && !emitted[inputs[next]])) ++next;
      if (next < inputs.size()) {
        const NodeId in = inputs[next++];
        stack.push_back({in, 0});
        continue;
      }
      if (!emitted[id]) {
        emitted[id] = true;
        order.push_back(id);
      }
      stack.pop_back();
    }
  }
  // Recomputed nodes nothing in the backward reads (kept for a side effect).
  for (NodeId id = 0; id < count; ++id) {
    if (in_backward(id) && !emitted[id]) order.push_back(id);
  }
}

}  // namespace pt
