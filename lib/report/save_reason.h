// Why a value ends up saved for the backward, for reports and `explain`:
// inputs are always saved (nothing computes them), symbolic sizes are cheap,
// a banned node cannot be recomputed, and anything else was the cheaper side
// of the minimum cut.
#pragma once

#include <string>

#include "graph/graph.h"
#include "partition/partitioner.h"

namespace pt {

struct SaveReason {
  std::string code;     // parameter, input, symbol, must_save, banned, min_cut
  std::string label;    // short, for tables ("ban: reduction op")
  std::string text;     // one sentence
  std::string setting;  // the setting that changes it ("" when none does)
};

SaveReason save_reason(const Graph& g, const PartitionResult& r, NodeId id);

// A short table label for a ban ("ban: not in allowlist").
std::string ban_label(BanReason why);

}  // namespace pt
