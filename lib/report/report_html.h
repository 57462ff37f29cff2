// `--report-html PATH`: the report as one self-contained HTML page (inline
// CSS and script, nothing loaded from elsewhere, works offline): the
// summary, the memory timeline (memory_plot_svg.h), the values live at the
// peak, the saved values as a table sorted and filtered in the page (by
// name, module or reason), the recomputed ops, the bans, the settings, and
// any node's `explain` chain (explain.h).
//
// Large graphs stay quick to open: tables hold data, not markup (the page
// draws at most kHtmlRowsShown rows of a table), and the explanations are
// one JSON blob of deduplicated texts, parsed the first time a node is
// explained. The page reads its state from the URL fragment:
// report.html#filter=mm&explain=mm_default_2 (what a headless browser test
// uses).
#pragma once

#include <cstdint>
#include <deque>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "report/explain.h"
#include "report/report_model.h"

namespace pt {

inline constexpr size_t kHtmlRowsShown = 2000;

// Explanations, their texts stored once (most facts repeat from node to
// node: the op, the placement, "none: the cut may recompute it").
class ExplainTable {
 public:
  void add(const Explanation& x);
  // {"s": [texts], "n": [node names], "x": [[status, summary, label, text, ...] per node, as indices into s]}
  void write_json(std::ostream& out) const;
  size_t size() const { return names_.size(); }

 private:
  uint32_t text_index(const std::string& s);
  // Each text once: the index views the deque's strings, which stay where
  // they are as it grows. The rows are one array (row k: row_start_[k] to
  // row_start_[k + 1]): at 10^6 nodes a vector per row and a second copy of
  // every text were most of the table's memory.
  std::deque<std::string> texts_;
  std::unordered_map<std::string_view, uint32_t> index_;
  std::vector<std::string> names_;
  std::vector<uint32_t> row_items_;
  std::vector<size_t> row_start_{0};
};

// The model must carry memory_plot for the timeline (ReportInputs::memory_plot);
// without it the page says so. `top` bounds the live-at-peak table (0: all).
void write_report_html(std::ostream& out, const ReportModel& m, const ExplainTable& explanations, size_t top);

}  // namespace pt
