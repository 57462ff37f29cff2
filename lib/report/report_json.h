// The machine-readable report of one partition (`--report-json`). Field
// names are stable and every one is documented in the README ("JSON
// report"); timings are the only part that changes between identical runs
// (--no-timings leaves them out).
#pragma once

#include <ostream>
#include <vector>

#include "report/report_model.h"

namespace pt {

// One graph's report: an object that starts with schema_version. A model
// without timings (--no-timings) writes "timings": {}, so that two runs'
// reports compare byte for byte.
void write_report_json(std::ostream& out, const ReportModel& m);

// Several graphs' reports in one document (CI over a model with graph
// breaks): schema_version, "graphs" (each graph's report, as above) and
// "totals" over all of them (sums; the largest peak).
void write_reports_json(std::ostream& out, const std::vector<const ReportModel*>& models);

}  // namespace pt
