// The machine-readable report of one partition (`--report-json`). Field
// names are stable and documented in the README; timings are the only part
// that changes between identical runs.
#pragma once

#include <ostream>
#include <vector>

#include "graph/graph.h"
#include "partition/settings.h"
#include "pipeline/pipeline.h"
#include "pipeline/stage_timer.h"

namespace pt {

void write_report_json(std::ostream& out, const Graph& joint, const Partitioned& p, const Settings& s,
                       const std::vector<StageTiming>& timings);

}  // namespace pt
