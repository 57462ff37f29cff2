// The report as Markdown (`--report-md`), for CI comments: the text report's
// sections as tables, with the same row limits and hidden-row notes.
#pragma once

#include <ostream>

#include "report/report_model.h"
#include "report/report_text.h"

namespace pt {

void write_report_markdown(std::ostream& out, const ReportModel& m, const TextReportOptions& options = {});

}  // namespace pt
