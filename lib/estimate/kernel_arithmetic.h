// The arithmetic floor of a fused kernel (BandwidthOptions::
// fused_compute_floor): the time of its transcendental functions, which
// bound GELU's and a recomputed rotary embedding's kernels below their
// bytes. Each distinct expression counts once (Inductor computes a value
// a kernel holds twice, the recomputed GELU and the GELU backward's own erf
// of the same input, once), for each of its evaluations, at the device's
// measured cost of one (Device::erf_seconds, exp_seconds; sin and cos, also
// libdevice calls with a range reduction, at erf's). An online softmax's
// exp counts twice (online_softmax.h). A pooling gradient's window taps
// count too (inductor_fusible.h, Device::pool_tap_seconds).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "estimate/device.h"
#include "estimate/fusion_groups.h"
#include "graph/graph.h"

namespace pt {

class KernelArithmetic {
 public:
  KernelArithmetic(const Graph& g, const FusionGroups& f, const std::vector<uint64_t>& numel, const Device& d);

  // Seconds of one kernel's transcendental work. `roots`: the values it
  // stores; `closure`: everything it computes (roots included, and the
  // fused values of other kernels it computes again), descending ids.
  double seconds(std::span<const NodeId> roots, std::span<const NodeId> closure);

 private:
  double cost(NodeId c) const;

  const Graph& g_;
  const FusionGroups& f_;
  const std::vector<uint64_t>& numel_;
  const Device& device_;
  // Per node, set during seconds() only (allocated at its first call):
  std::vector<uint64_t> evals_;      // evaluations
  std::vector<uint8_t> in_closure_;
  std::vector<NodeId> kept_as_;      // value numbers (identity between kernels)
  std::unordered_map<std::string, NodeId> seen_;
  std::string key_;
};

}  // namespace pt
