// The human-readable report of one partition (`--report`): a summary first,
// then the largest saved values with the reason each is saved, the
// recomputed ops by kind, the bans by reason and the changed settings.
// Lines fit 100 columns.
#pragma once

#include <ostream>

#include "graph/graph.h"
#include "partition/settings.h"
#include "pipeline/pipeline.h"

namespace pt {

struct TextReportOptions {
  size_t top = 15;  // rows of the largest-saved-values table (0 = all)
};

void write_report_text(std::ostream& out, const Graph& joint, const Partitioned& p, const Settings& s,
                       const TextReportOptions& options = {});

}  // namespace pt
