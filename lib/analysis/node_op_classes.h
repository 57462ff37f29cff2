// The op classes (op_classes.h) of every node of one graph, looked up once.
// The bandwidth model and the peak simulation asked is_view / is_fusible_op
// of the same nodes again and again (each kernel search, each fused view's
// base, each demand edge, both passes): about 13 set lookups per node, an
// eighth of the report stage on gpt2_l96. One byte per node answers them.
// The flow network's weights and ban heuristics ask is_fusible per user
// edge (four lookups each): 1.2M of gpt2_124m's 39M instructions before
// they read this instead.
#pragma once

#include <cstdint>
#include <vector>

#include "settings/op_classes.h"
#include "graph/graph.h"

namespace pt {

class NodeOpClasses {
 public:
  NodeOpClasses(const Graph& g, const OpClasses& ops);

  bool is_view(NodeId id) const { return (bits_[static_cast<size_t>(id)] & kView) != 0; }
  bool is_fusible_op(NodeId id) const { return (bits_[static_cast<size_t>(id)] & kFusible) != 0; }
  bool is_compute_intensive(NodeId id) const { return (bits_[static_cast<size_t>(id)] & kComputeIntensive) != 0; }
  bool is_recomputable(NodeId id) const { return (bits_[static_cast<size_t>(id)] & kRecomputable) != 0; }
  bool is_random(NodeId id) const { return (bits_[static_cast<size_t>(id)] & kRandom) != 0; }
  // OpClasses::is_fusible of nodes a and b: b is aten.cat, or both fusible.
  bool is_fusible(NodeId a, NodeId b) const {
    return (bits_[static_cast<size_t>(b)] & kCat) != 0 || (is_fusible_op(a) && is_fusible_op(b));
  }

 private:
  enum : uint8_t { kView = 1, kFusible = 2, kComputeIntensive = 4, kRecomputable = 8, kRandom = 16, kCat = 32 };
  std::vector<uint8_t> bits_;  // per node
};

}  // namespace pt
