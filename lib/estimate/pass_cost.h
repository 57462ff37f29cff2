#pragma once
// One pass's bandwidth estimate (bandwidth_model.h's model): its kernels
// (fusion_groups.h) costed for loads, stores, FLOPs and roofline time.
// estimate_pass (bandwidth_model.h) is this with its lookups made here;
// the two-pass estimate makes them once for both passes.

#include <cstdint>
#include <vector>

#include "analysis/node_op_classes.h"
#include "analysis/subgraph.h"
#include "graph/graph.h"
#include "estimate/bandwidth_model.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"
#include "estimate/fusion_groups.h"

namespace pt {

// `numel` is value_numels(g) (value_numel.h), `channels_last` its
// channels_last_values under `o` (inductor_layout.h), `ops` the per-node op
// classes; the other arguments as estimate_pass's.
PassEstimate cost_pass(const Graph& g, const Subgraph& pass, const std::vector<NodeId>& outputs,
                       const NodeOpClasses& ops, const std::vector<uint64_t>& numel, const Flags& channels_last,
                       const Device& device,
                       const BandwidthOptions& o, const std::vector<NodeId>& recomputed,
                       PassDetail detail = PassDetail::Kernels);

// cost_pass's second step, for a caller that reads the pass's kernels
// (group_kernels, fusion_groups.h) elsewhere meanwhile: the estimate of
// kernels `f`, which it only reads. Its stored, realized and kernel fields
// stay empty until move_masks.
PassEstimate cost_kernels(const Graph& g, const FusionGroups& f, const NodeOpClasses& ops,
                          const std::vector<uint64_t>& numel, const Device& device, const BandwidthOptions& o,
                          PassDetail detail = PassDetail::Kernels);

// The groups' per-node masks into the estimate's fields, moved, not copied
// (6 bytes a node, touched again by a copy while the groups still lived).
void move_masks(FusionGroups& from, PassEstimate& to);

}  // namespace pt
