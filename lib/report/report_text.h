// The human-readable report of one partition (`--report`): a summary first
// (saved values against the two extremes, recomputed ops, the bandwidth
// model's traffic and time, peak memory), then the largest saved values with
// the reason each is saved, the recomputed ops by kind, the bans by reason
// and the settings that differ from the defaults. Lines fit 100 columns;
// every cut-off list says how many rows it hides.
#pragma once

#include <cstddef>
#include <ostream>

#include "report/report_model.h"

namespace pt {

struct TextReportOptions {
  size_t top = 15;  // rows per list (0 = all)
};

void write_report_text(std::ostream& out, const ReportModel& m, const TextReportOptions& options = {});

}  // namespace pt
