// Classification of the prepared joint graph (docs/design.md section 3, rules 4
// and 6): which nodes the forward needs, which must run in the backward, the
// forward order, and each node's distance from the backward.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace pt {

inline constexpr int64_t kFarFromBackward = 1'000'000'000;  // PyTorch's int(1e9)

struct Classification {
  Flags required_fw;       // nodes of the forward-only graph (primals and fwd seeds always)
  Flags required_bw;       // tangent closure + gradient outputs
  Flags tangent_closure;   // tangents, must-be-in-backward nodes, and everything downstream
  std::vector<int32_t> fw_order;       // position among required_fw nodes, -1 elsewhere
  std::vector<int64_t> dist_from_bw;   // 0 outside required_fw; 1e9 when the backward never reads it
  std::vector<NodeId> inputs;          // primals then forward seeds
  std::vector<NodeId> fwd_outputs;     // the first num_fwd_outputs outputs
  std::vector<NodeId> bwd_outputs;     // the rest (kNoNode for none)

  bool unclaimed(NodeId id) const { return !required_fw[id] && !required_bw[id]; }
  bool any_required_bw() const;
};

// `threads` (--threads): on large graphs the tangent closure and the
// forward's part run side by side; the result does not depend on it.
Classification classify(const Graph& g, unsigned threads = 1);

}  // namespace pt
