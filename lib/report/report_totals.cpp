#include "report/report_totals.h"

#include <algorithm>

namespace pt {

ReportTotals total_of(const std::vector<const ReportModel*>& models) {
  ReportTotals t;
  for (const ReportModel* m : models) {
    ++t.graphs;
    t.nodes += m->nodes_input;
    t.saved_count += static_cast<int64_t>(m->saved.size());
    t.saved_bytes += m->saved_bytes;
    t.recomputed_count += static_cast<int64_t>(m->recomputed.size());
    t.forward_bytes += m->bandwidth.forward.bytes_loaded + m->bandwidth.forward.bytes_stored;
    t.backward_bytes += m->bandwidth.backward.bytes_loaded + m->bandwidth.backward.bytes_stored;
    t.forward_seconds += m->bandwidth.forward.seconds;
    t.backward_seconds += m->bandwidth.backward.seconds;
    if (m->memory) t.peak_bytes_max = std::max(t.peak_bytes_max, m->memory->peak_bytes);
  }
  return t;
}

}  // namespace pt
