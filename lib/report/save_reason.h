// Why a value ends up saved for the backward, for reports and `explain`:
// inputs are always saved (nothing computes them), symbolic sizes are cheap,
// a banned node cannot be recomputed, and anything else was the cheaper side
// of the minimum cut, or, in a memory-limit plan beyond the knobs (no cut),
// the plan's choice.
#pragma once

#include <string_view>

#include "graph/graph.h"
#include "partition/partitioner.h"

namespace pt {

// Every field views a static text (views, not strings: a 10^6-node
// report holds ~100,000 of these rows at its peak, and three of the four
// strings were heap copies of the same sentences).
struct SaveReason {
  std::string_view code;     // parameter, input, symbol, must_save, banned, min_cut, memory_limit_plan
  std::string_view label;    // short, for tables ("ban: reduction op")
  std::string_view text;     // one sentence
  std::string_view setting;  // the setting that changes it ("" when none does)
};

// One of a fixed set of static entries: a report row keeps a pointer to it
// (8 bytes, where a copy of the four views took 64: 6 MB at 10^6 nodes).
const SaveReason& save_reason(const Graph& g, const PartitionResult& r, NodeId id);

// A short table label for a ban ("ban: not in allowlist").
std::string_view ban_label(BanReason why);

}  // namespace pt
