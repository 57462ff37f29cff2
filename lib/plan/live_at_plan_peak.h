// What is alive when a plan's simulated peak is reached: the saved values,
// largest first (what the per-value search tries to recompute), and every
// live value with the bytes of each category (what the planner names when
// no plan fits: on GPT-2 the logits' gradient, a temporary no plan can
// drop, is most of the smallest peak). Read from the report's own memory
// timeline (estimate/memory_timeline.h's live_at_peak), so the planner and
// the report's "live at the peak" table agree.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"
#include "estimate/memory_timeline.h"

namespace pt {

struct LiveAtPeak {
  // A buffer alive as saved stands for each saved value that views it or
  // is an item of it (itself included); ties in size keep graph order.
  std::vector<NodeId> saved;
  std::vector<LiveValue> values;  // all of them, largest first
  CategoryBytes bytes{};          // their bytes per category
};

// `r` partitioned under `s`.
LiveAtPeak live_at_plan_peak(const Graph& g, const PartitionResult& r, const Settings& s, const Device& device,
                             const BandwidthOptions& o);
inline std::vector<NodeId> saved_live_at_peak(const Graph& g, const PartitionResult& r, const Settings& s,
                                              const Device& device, const BandwidthOptions& o) {
  return live_at_plan_peak(g, r, s, device, o).saved;
}

// One line for a message: the live bytes per category, largest first, each
// with its largest values ("temporaries 824 MB (div_1 412 MB, ...), saved
// 290 MB (view_128 6.29 MB, ... and 56 more), inputs ...").
std::string live_at_peak_text(const Graph& g, const LiveAtPeak& live);

}  // namespace pt
