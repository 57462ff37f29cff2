#include "analysis/classify.h"

#include <algorithm>

#include "analysis/subgraph.h"
#include "graph/errors.h"
#include "graph/printable.h"

namespace pt {

bool Classification::any_required_bw() const {
  return std::find(required_bw.begin(), required_bw.end(), true) != required_bw.end();
}

Classification classify(const Graph& g) {
  const NodeId count = g.size();
  Classification c;
  c.required_bw.assign(count, false);
  c.tangent_closure.assign(count, false);

  // Tangent closure, in graph order: seeds are tangents and nodes that must
  // run in the backward; every user of a member joins.
  for (NodeId id = 0; id < count; ++id) {
    const Node& n = g[id];
    if (n.input_kind == InputKind::Tangent || must_be_in_backward(n)) c.tangent_closure[id] = true;
    if (c.tangent_closure[id]) {
      for (NodeId u : g.users[id]) c.tangent_closure[u] = true;
    }
  }
  c.required_bw = c.tangent_closure;

  for (size_t k = 0; k < g.outputs.size(); ++k) {
    if (static_cast<int64_t>(k) < g.num_fwd_outputs) c.fwd_outputs.push_back(g.outputs[k]);
    else c.bwd_outputs.push_back(g.outputs[k]);
  }
  for (NodeId out : c.bwd_outputs) {
    if (out != kNoNode && g[out].op != OpKind::Output) c.required_bw[out] = true;
  }

  for (NodeId id = 0; id < count; ++id) {
    if (g[id].input_kind == InputKind::Primal) c.inputs.push_back(id);
  }
  for (NodeId id = 0; id < count; ++id) {
    if (g[id].input_kind == InputKind::FwdSeed) c.inputs.push_back(id);
  }
  const Subgraph fw = extract_subgraph(g, c.inputs, c.fwd_outputs, Pass::Forward);
  if (fw.invalid_output) {
    throw InputError(g.source + ": node '" + printable(g[*fw.invalid_output].name) +
                     "': is a forward output but cannot be computed from the primals and forward seeds");
  }
  c.required_fw = fw.keep;

  c.fw_order.assign(count, -1);
  int32_t order = 0;
  for (NodeId id = 0; id < count; ++id) {
    if (c.required_fw[id]) c.fw_order[id] = order++;
  }

  // Distance from the backward, in reverse graph order.
  c.dist_from_bw.assign(count, 0);
  for (NodeId id = count - 1; id >= 0; --id) {
    if (g[id].op == OpKind::Output) {
      c.dist_from_bw[id] = kFarFromBackward;
    } else if (!c.required_fw[id]) {
      c.dist_from_bw[id] = 0;
    } else {
      int64_t d = kFarFromBackward;
      for (NodeId u : g.users[id]) d = std::min(d, c.dist_from_bw[u] + 1);
      c.dist_from_bw[id] = d;
    }
  }
  return c;
}

}  // namespace pt
