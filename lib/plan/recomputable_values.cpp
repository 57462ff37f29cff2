#include "plan/recomputable_values.h"

namespace pt {

Flags recomputable_values(const Graph& g, const PartitionResult& base, const Settings& s) {
  Flags ok(g.size(), false);
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g[id];
    if (n.op != OpKind::CallFunction || !base.classification.required_fw[id]) continue;
    const bool seed = n.packet.find("seed") != std::string_view::npos;
    ok[id] = !s.op_classes.is_random(n) && !seed && n.recompute != Recompute::MustSave &&
             !n.packet.starts_with("_c10d_functional.") && !n.is_mutable && !n.impure;
    // A getitem is recomputed by recomputing its tuple. When the tuple's op
    // may not be recomputed, the getitem is saved: a tuple cannot be saved
    // whole (the forward's outputs are its items), so a plan must stop at
    // the item, never at the tuple. Node ids are topological, so the
    // tuple's flag is final here.
    if (n.packet == "operator.getitem" && !n.positional_inputs.empty()) {
      const NodeId tuple = n.positional_inputs[0];
      if (g[tuple].value_kind == ValueKind::Tuple && !ok[tuple]) ok[id] = false;
    }
  }
  return ok;
}

Flags runnable_in_backward(const Flags& recomputable, const PartitionResult& reference) {
  Flags ok = recomputable;
  for (NodeId id : reference.extraction.recomputed) ok[id] = true;
  return ok;
}

}  // namespace pt
