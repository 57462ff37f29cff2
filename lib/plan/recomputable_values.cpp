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
  }
  return ok;
}

}  // namespace pt
