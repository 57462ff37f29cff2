#include "analysis/classify.h"

#include <algorithm>

#include "analysis/subgraph.h"
#include "graph/errors.h"
#include "graph/printable.h"

namespace pt {

bool Classification::any_required_bw() const {
  return std::find(required_bw.begin(), required_bw.end(), true) != required_bw.end();
}

namespace {

// The tangent closure, in graph order: seeds are tangents and nodes that
// must run in the backward; every user of a member joins. With the
// gradient outputs, what the backward requires.
void backward_part(const Graph& g, Classification& c) {
  const NodeId count = g.size();
  for (NodeId id = 0; id < count; ++id) {
    const Node& n = g[id];
    if (n.input_kind == InputKind::Tangent || must_be_in_backward(n)) c.tangent_closure[id] = true;
    if (c.tangent_closure[id]) {
      for (NodeId u : g.users[id]) c.tangent_closure[u] = true;
    }
  }
  c.required_bw = c.tangent_closure;
  for (NodeId out : c.bwd_outputs) {
    if (out != kNoNode && g[out].op != OpKind::Output) c.required_bw[out] = true;
  }
}

// What the forward requires, its order, and each node's distance from the
// backward (which reads only the forward's part).
void forward_part(const Graph& g, Classification& c) {
  const NodeId count = g.size();
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

  int32_t order = 0;
  for (NodeId id = 0; id < count; ++id) {
    if (c.required_fw[id]) c.fw_order[id] = order++;
  }

  // Distance from the backward, in reverse graph order.
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
}

}  // namespace

Classification classify(const Graph& g) {
  const NodeId count = g.size();
  Classification c;
  // Every array is allocated here, on the thread that keeps them (glibc
  // would keep the second thread's in its own arena).
  c.tangent_closure.assign(count, false);
  c.required_bw.reserve(count);
  c.fw_order.assign(count, -1);
  c.dist_from_bw.assign(count, 0);
  for (size_t k = 0; k < g.outputs.size(); ++k) {
    if (static_cast<int64_t>(k) < g.num_fwd_outputs) c.fwd_outputs.push_back(g.outputs[k]);
    else c.bwd_outputs.push_back(g.outputs[k]);
  }
  backward_part(g, c);
  forward_part(g, c);
  return c;
}

}  // namespace pt
