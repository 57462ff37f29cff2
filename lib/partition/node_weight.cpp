#include "partition/node_weight.h"

#include <algorithm>
#include <cmath>

#include "graph/errors.h"

namespace pt {

namespace {

// `fusible(a, b)`: OpClasses::is_fusible of nodes a and b.
template <class Fusible>
bool materialized(const Graph& g, NodeId id, const Fusible& fusible) {
  if (g[id].op == OpKind::Placeholder) return true;
  for (NodeId u : g.users[id]) {
    if (!fusible(id, u)) return true;
  }
  return false;
}

}  // namespace

bool is_materialized(const Graph& g, NodeId id, const NodeOpClasses& ops) {
  return materialized(g, id, [&ops](NodeId a, NodeId b) { return ops.is_fusible(a, b); });
}

bool is_materialized(const Graph& g, NodeId id, const OpClasses& ops) {
  return materialized(g, id, [&](NodeId a, NodeId b) { return ops.is_fusible(g[a], g[b]); });
}

std::optional<Capacity> node_weight(const Graph& g, const Classification& c, NodeId id, const Settings& s,
                                    const NodeOpClasses& ops) {
  const Node& n = g[id];
  if (n.value_kind == ValueKind::Sym) return n.sym_kind == SymKind::Float ? 4 : 1;
  if (n.value_kind != ValueKind::Tensor) {
    // Non-tensor values cannot be saved, except the backward-state and
    // script-object handles, which cost nothing.
    if (n.value_kind == ValueKind::Opaque) {
      const proto::Node pn = g.record(id);
      const std::string_view type = pn.val().opaque();
      if (type.find("BackwardState") != std::string_view::npos ||
          type.find("FakeScriptObject") != std::string_view::npos) {
        return 0;
      }
    }
    return std::nullopt;
  }
  // Parameters and buffers live for the whole step anyway (setting
  // treat_parameters_as_free_to_save).
  if (s.treat_parameters_as_free_to_save && g.static_lifetime[id]) return 0;
  // recompute_views: views are never saved, always recomputed from their base.
  if (s.recompute_views && ops.is_view(id)) return std::nullopt;

  const double dist = static_cast<double>(c.dist_from_bw[id]);
  const double exponent = std::max(std::min(dist, s.dist_from_bw_cap), 1.0);
  const double weight = std::trunc(static_cast<double>(n.size_bytes) * std::pow(s.dist_from_bw_base, exponent));
  // Not materialized: saving it costs an extra write the forward would not
  // do. Doubling a double is exact unless it overflows.
  const Capacity w = is_materialized(g, id, ops) ? weight : 2 * weight;
  if (!std::isfinite(w)) {
    throw InputError(g.source + ": node '" + std::string(n.name) +
                     "': the cost of saving it overflows a double, as in PyTorch's float arithmetic; lower "
                     "dist_from_bw_base or dist_from_bw_cap");
  }
  return w;
}

}  // namespace pt
