// The saved values alive when the plan's simulated peak is reached, largest
// first: what the per-value search tries to recompute, and what the
// planner names when no plan fits. Read from the report's own memory
// timeline (estimate/memory_timeline.h's live_at_peak), so the planner and
// the report's "live at the peak" table agree. Only saved values: the
// forward's and the backward's own intermediates are not counted (the plan
// cannot change them).
#pragma once

#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

namespace pt {

// `r` partitioned under `s`. A buffer alive as saved stands for each saved
// value that views it or is an item of it (itself included); ties in size
// keep graph order.
std::vector<NodeId> saved_live_at_peak(const Graph& g, const PartitionResult& r, const Settings& s,
                                       const Device& device, const BandwidthOptions& o);

}  // namespace pt
