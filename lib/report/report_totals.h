// Totals over several graphs' reports (a model with graph breaks gives one
// joint graph per break): what CI compares when it partitions them in one
// call. The graphs run one after another, so the peak is the largest one.
#pragma once

#include <cstdint>
#include <vector>

#include "report/report_model.h"

namespace pt {

struct ReportTotals {
  int64_t graphs = 0;
  int64_t nodes = 0;
  int64_t saved_count = 0;
  double saved_bytes = 0;  // sums over any number of graphs: doubles, as traffic totals
  int64_t recomputed_count = 0;
  double forward_bytes = 0, backward_bytes = 0;  // bandwidth model: loaded + stored
  double forward_seconds = 0, backward_seconds = 0;
  uint64_t peak_bytes_max = 0;
};

ReportTotals total_of(const std::vector<const ReportModel*>& models);

}  // namespace pt
