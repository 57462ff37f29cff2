// Operator classes by overload packet ("aten.add"), as PyTorch's OpTypes:
// which ops may be recomputed, fused, are views, random or compute-intensive.
// Defaults are PyTorch 2.11's (shared/corpus/op_classes.json, compiled in);
// every class can be edited from the settings (see settings.h).
#pragma once

#include <string_view>
#include <vector>

#include "settings/packet_set.h"
#include "graph/graph.h"

namespace pt {

struct OpClasses {
  PacketSet recomputable;       // the recompute allowlist (pointwise packets included)
  PacketSet random;             // random ops (fusible, but banned unless allowlisted)
  PacketSet view;               // view ops
  PacketSet compute_intensive;  // matmuls, convolutions, attention
  PacketSet cse_rand;           // never merged by CSE
  PacketSet pointwise;          // packets with a pointwise overload (reports)

  static OpClasses pytorch_defaults();
  // Every packet of PyTorch's default classes, sorted, each once: the ops
  // the tool knows by name (settings edits are checked against them).
  static const std::vector<std::string_view>& known_packets();

  bool is_recomputable(const Node& n) const { return recomputable.count(n.packet) != 0; }
  bool is_random(const Node& n) const { return random.count(n.packet) != 0; }
  bool is_view(const Node& n) const { return view.count(n.packet) != 0; }
  bool is_compute_intensive(const Node& n) const { return compute_intensive.count(n.packet) != 0; }
  // Fusible set = recomputable + random.
  bool is_fusible_op(const Node& n) const { return is_recomputable(n) || is_random(n); }
  // PyTorch's is_fusible(a, b): b is aten.cat, or both are in the fusible set.
  bool is_fusible(const Node& a, const Node& b) const {
    return b.packet == "aten.cat" || (is_fusible_op(a) && is_fusible_op(b));
  }
};

}  // namespace pt
