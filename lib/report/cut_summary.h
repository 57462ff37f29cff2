// A partition as `diff` compares it: the saved values with their sizes, the
// recomputed ops, and the bandwidth model's totals. It comes from a report
// built in this run, or from a JSON report saved earlier (--report-json), so
// two runs (other graphs, other versions of the tool) can be compared later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/report_model.h"

namespace pt {

struct PassTotals {
  double bytes_loaded = 0;  // as bandwidth_model.h's totals
  double bytes_stored = 0;
  double flops = 0;
  double seconds = 0;

  double bytes() const { return bytes_loaded + bytes_stored; }
};

struct CutSummary {
  std::string label;                  // "A", or the report file
  std::string graph;
  std::vector<std::string> settings;  // changed settings as key=value
  std::vector<std::pair<std::string, uint64_t>> saved;  // values then symbols, with bytes
  std::vector<std::string> recomputed;
  uint64_t saved_bytes = 0;
  std::string device;
  PassTotals forward, backward;
  std::optional<uint64_t> peak_bytes;  // when the report has memory.peak_bytes
  std::string plan;                    // under memory_limit: the chosen plan (PlanCandidate::description)
};

CutSummary summarize_cut(const ReportModel& m, std::string label);

// Reads a JSON report written by --report-json. Throws InputError naming
// `source` and the missing or mistyped field.
CutSummary read_report_json(const std::string& json, const std::string& source);
// The same for a report of one graph or of several (its "graphs", in order).
std::vector<CutSummary> read_reports_json(const std::string& json, const std::string& source);

}  // namespace pt
