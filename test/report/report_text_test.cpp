// The text and Markdown reports: sections in order, lines within 100
// columns, hidden rows counted, the bandwidth model's numbers shown.
#include <doctest/doctest.h>

#include <sstream>

#include "report/linear_ce.h"
#include "report/report_markdown.h"
#include "report/report_text.h"

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string text_report(const pt::ReportModel& m, size_t top) {
  std::ostringstream out;
  pt::write_report_text(out, m, {top});
  return out.str();
}

}  // namespace

TEST_CASE("text report: summary first, then the lists, every line within 100 columns") {
  const pt::test::LinearCe lce(1.1, "a100");
  const std::string text = text_report(lce.report, 15);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    CAPTURE(line);
    CHECK(line.size() <= 100);
  }
  size_t at = 0;
  for (const char* section : {"Summary", "Largest saved values", "Largest values live at the peak", "Recomputed ops by kind",
                              "Recomputation bans by reason", "Settings that differ from the defaults"}) {
    CAPTURE(std::string(section));
    const size_t found = text.find(section, at);
    CHECK(found != std::string::npos);
    at = found;
  }
  for (const char* part : {"saved          7 values, 3.42 GB", "saving only the inputs: 3 values, 128 MB",
                           "recomputed     8 ops", "on a100", "10.2 GB moved (6.79 GB loaded, 3.37 GB stored)",
                           "mm_default_2", "L['lin']", "ban: not in allowlist", "ban_recompute_reductions",
                           "none: PyTorch 2.11 defaults"}) {
    CAPTURE(std::string(part));
    CHECK(contains(text, part));
  }
}

TEST_CASE("text report: --top hides rows and says how many") {
  const pt::test::LinearCe lce(1.1);
  const std::string text = text_report(lce.report, 2);
  CHECK(contains(text, "Largest saved values (largest 2 of 7)"));
  CHECK(contains(text, "... 5 more not shown (--top 0 shows all)"));
  CHECK(contains(text, "Recomputed ops by kind (2 of 5 kinds)"));
  const std::string all = text_report(lce.report, 0);
  CHECK_FALSE(contains(all, "more not shown"));
  CHECK(contains(all, "convert_element_type_4"));
}

TEST_CASE("text report: changed settings with their defaults") {
  const pt::test::LinearCe lce(1.2);
  const std::string text = text_report(lce.report, 15);
  CHECK(contains(text, "dist_from_bw_base                        1.2                  (default 1.1)"));
  CHECK(contains(text, "convert_element_type_3"));
}

TEST_CASE("Markdown report: the same sections as tables") {
  const pt::test::LinearCe lce(1.2);
  std::ostringstream out;
  pt::write_report_markdown(out, lce.report, {3});
  const std::string md = out.str();
  for (const char* part : {"## partition_tool report: `linear_ce`", "| **saved** | 5 | 3.42 GB |",
                           "| bandwidth model on h100 | loaded | stored | FLOPs | time |", "### Largest saved values",
                           "| `convert_element_type_3` | 3.29 GB | bfloat16 | [32768,50257] |",
                           "_2 more not shown (`--top 0` shows all)._", "### Recomputation bans by reason",
                           "| `dist_from_bw_base` | `1.2` | `1.1` |"}) {
    CAPTURE(std::string(part));
    CHECK(contains(md, part));
  }
}
