#include "estimate/matmul_at_add.h"

#include <optional>
#include <string_view>

namespace pt {

namespace {

// is_expandable_to(inp, mm): trailing dimensions equal or 1, no more of them.
bool expandable_to(const proto::TensorMeta& inp, const proto::TensorMeta& mm) {
  const int n = inp.shape_size(), m = mm.shape_size();
  if (n > m) return false;
  for (int i = 1; i <= n; ++i) {
    const int64_t a = inp.shape(n - i), b = mm.shape(m - i);
    if (a != b && a != 1) return false;
  }
  return true;
}

bool has_tag(const Graph& g, NodeId id, std::string_view tag) {
  const proto::Node pn = g.record(id);
  for (const std::string& t : pn.op_tags()) {
    if (t == tag) return true;
  }
  return false;
}

// Whether a reader of `id` in the pass, through views and getitems, is a
// pointwise op or a reduction.
bool has_fusible_reader(const Graph& g, const NodeOpClasses& ops, const Flags& in_pass, NodeId id) {
  std::vector<NodeId> stack(1, id);
  while (!stack.empty()) {
    const NodeId x = stack.back();
    stack.pop_back();
    for (NodeId u : g.users[x]) {
      if (!in_pass[u]) continue;
      if (ops.is_view(u) || g[u].packet == "operator.getitem") {
        stack.push_back(u);
      } else if (has_tag(g, u, "pointwise") || has_tag(g, u, "reduction")) {
        return true;
      }
    }
  }
  return false;
}

// The add that runs matmul `id` (kNoNode: it runs at its own place).
NodeId add_running(const Graph& g, const NodeOpClasses& ops, const Flags& in_pass, const Flags& kept, NodeId id) {
  if (!in_pass[id] || kept[id] || g[id].packet != "aten.mm") return kNoNode;
  NodeId add = kNoNode;
  int users = 0;
  for (NodeId u : g.users[id]) {
    if (in_pass[u]) {
      ++users;
      add = u;
    }
  }
  if (users != 1 || g[add].target != "aten.add.Tensor" || g[add].positional_inputs.size() != 2 ||
      g[add].inputs.size() != 2) {
    return kNoNode;
  }
  if (g.record(add).kwargs_size() != 0) return kNoNode;  // the pattern has none (an alpha)
  const auto& args = g[add].positional_inputs;
  // add(mm, mm) becomes one addmm, of the first.
  if (args[1] == id && g[args[0]].packet == "aten.mm") return kNoNode;
  const NodeId other = args[0] == id ? args[1] : args[0];
  if (other == id || g[other].dtype == 0 || g[other].dtype != g[id].dtype) return kNoNode;
  const std::optional<proto::TensorMeta> inp = tensor_meta(g, other);
  const std::optional<proto::TensorMeta> mm = tensor_meta(g, id);
  if (!inp || !mm || !expandable_to(*inp, *mm) || has_fusible_reader(g, ops, in_pass, add)) return kNoNode;
  return add;
}

}  // namespace

void run_matmuls_at_their_adds(const Graph& g, const NodeOpClasses& ops, const Flags& kept,
                               std::vector<NodeId>& order) {
  Flags in_pass(static_cast<size_t>(g.size()), false);
  for (NodeId id : order) in_pass[id] = true;
  std::vector<std::vector<NodeId>> before;  // per add: the matmuls that run just before it
  Flags moved;                              // matmuls that run at their add
  for (NodeId id : order) {
    const NodeId add = add_running(g, ops, in_pass, kept, id);
    if (add == kNoNode) continue;
    if (before.empty()) {
      before.resize(static_cast<size_t>(g.size()));
      moved.assign(static_cast<size_t>(g.size()), false);
    }
    before[static_cast<size_t>(add)].push_back(id);
    moved[id] = true;
  }
  if (before.empty()) return;
  std::vector<NodeId> out;
  out.reserve(order.size());
  for (NodeId id : order) {
    const auto& mms = before[static_cast<size_t>(id)];
    out.insert(out.end(), mms.begin(), mms.end());
    if (!moved[id]) out.push_back(id);
  }
  order = std::move(out);
}

}  // namespace pt
