// The report as Markdown (`--report-md`), for CI comments: the text report's
// sections as tables, with the same row limits and hidden-row notes.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "report/report_model.h"
#include "report/report_text.h"

namespace pt {

// A table cell (pipes escaped), and the same as code (in backticks).
std::string markdown_cell(const std::string& s);
std::string markdown_code(const std::string& s);

void write_report_markdown(std::ostream& out, const ReportModel& m, const TextReportOptions& options = {});

// Several graphs: each one's report as above, then a table of totals.
void write_reports_markdown(std::ostream& out, const std::vector<const ReportModel*>& models,
                            const TextReportOptions& options = {});

}  // namespace pt
