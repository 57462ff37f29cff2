// `diff`: what moved between two cuts of one graph (or two saved reports):
// values saved only by one side, ops recomputed only by one side, and the
// byte and time deltas of the bandwidth model. For CI: the cuts are
// identical when both sides save the same values and symbols.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "report/cut_summary.h"

namespace pt {

struct PassDelta {
  double bytes_loaded = 0;  // traffic totals are doubles (bandwidth_model.h)
  double bytes_stored = 0;
  double bytes = 0;  // loaded + stored
  double seconds = 0;
};

struct CutDiff {
  bool identical = true;
  std::vector<std::pair<std::string, uint64_t>> saved_only_a, saved_only_b;  // graph order of each side
  std::vector<std::string> recomputed_only_a, recomputed_only_b;
  int64_t saved_bytes_delta = 0;  // B - A, as every delta
  PassDelta forward, backward;
  bool same_device = true;        // the time deltas compare like with like
  std::optional<int64_t> peak_bytes_delta;  // when both sides have a peak
};

// One graph's two cuts and their diff (diff over several graphs).
struct GraphDiff {
  CutSummary a, b;
  CutDiff d;
};

CutDiff diff_cuts(const CutSummary& a, const CutSummary& b);

// The rows of A, B and B - A that the text and the Markdown diff show:
// saved bytes, each pass's traffic and time, the peak where both have one.
struct DeltaRow {
  std::string what, a, b, delta;
};
std::vector<DeltaRow> delta_rows(const CutSummary& a, const CutSummary& b, const CutDiff& d);

// Text for people (lines within 100 columns; lists longer than `top` rows
// say how many are hidden; top 0 = all).
void write_diff_text(std::ostream& out, const CutSummary& a, const CutSummary& b, const CutDiff& d, size_t top);
// JSON for scripts: schema_version, identical, a, b, saved_only_a, ...,
// delta (with peak_bytes when both sides have a peak).
void write_diff_json(std::ostream& out, const CutSummary& a, const CutSummary& b, const CutDiff& d);
// Several graphs: schema_version, identical (all of them), graphs[] (each as
// above, without schema_version).
void write_diffs_json(std::ostream& out, const std::vector<GraphDiff>& diffs);
// Markdown for a pull-request comment: per graph, the verdict, a table of
// A, B and B - A, and the moved values (folded, `top` rows each; 0 = all).
void write_diff_markdown(std::ostream& out, const std::vector<GraphDiff>& diffs, size_t top);

}  // namespace pt
