// The machine-readable report of one partition (`--report-json`). Field
// names are stable and every one is documented in the README ("JSON
// report"); timings are the only part that changes between identical runs.
#pragma once

#include <ostream>

#include "report/report_model.h"

namespace pt {

void write_report_json(std::ostream& out, const ReportModel& m);

}  // namespace pt
