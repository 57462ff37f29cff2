// The HTML report's markup: self-contained, every section present, graph
// text escaped wherever it lands (markup, the data blobs), explanations
// stored once per text. The browser test (html_report_browser.py) checks
// what the page shows once its script ran.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "report/linear_ce.h"
#include "report/report_html.h"

using namespace pt;

namespace {

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("linear_ce's page: every section, its data, nothing from elsewhere") {
  const test::LinearCe lce(1.1);
  const ReportModel m = build_report({test::linear_ce_graph(), lce.partitioned, lce.settings, parse_device("h100"),
                                      {}, {}, true});
  ExplainTable explanations;
  explain_each(lce.partitioned, lce.settings, [&](const Explanation& x) { explanations.add(x); });
  CHECK(explanations.size() + 1 == static_cast<size_t>(lce.partitioned.prepared.graph.size()));  // the output aside
  std::ostringstream out;
  write_report_html(out, m, explanations, 15);
  const std::string page = out.str();
  for (const char* id : {"id=\"peak-node\"", "id=\"saved-table\"", "id=\"live-table\"", "id=\"recomputed-list\"",
                         "id=\"banned-list\"", "id=\"settings-table\"", "id=\"explain-out\"", "id=\"report-data\"",
                         "id=\"explain-data\"", "<svg"}) {
    CAPTURE(std::string(id));
    CHECK(page.find(id) != std::string::npos);
  }
  CHECK(page.find(m.memory->peak_at) != std::string::npos);
  CHECK(page.find("src=") == std::string::npos);
  CHECK(page.find("<link") == std::string::npos);
  CHECK(count(page, "</script>") == 3);
  // Each saved value is a row of the data blob.
  for (const SavedRow& r : m.saved) CHECK(page.find("[\"" + std::string(r.name) + "\"," + std::to_string(r.bytes)) != std::string::npos);
}

TEST_CASE("explain_each says what explain_node says") {
  const test::LinearCe lce(1.1);
  const Graph& g = lce.partitioned.prepared.graph;
  size_t n = 0;
  explain_each(lce.partitioned, lce.settings, [&](const Explanation& x) {
    const Explanation one = explain_node(test::linear_ce_graph(), lce.partitioned, lce.settings, x.node);
    CHECK(x.status == one.status);
    CHECK(x.summary == one.summary);
    REQUIRE(x.facts.size() == one.facts.size());
    for (size_t i = 0; i < x.facts.size(); ++i) CHECK(x.facts[i].text == one.facts[i].text);
    ++n;
  });
  CHECK(n + 1 == static_cast<size_t>(g.size()));
}

TEST_CASE("names from the graph are escaped in the markup and cannot close a script") {
  static const SaveReason reason{"min_cut", "min cut <label>", "the cut's cheaper side & more", ""};
  ReportModel m;
  m.graph = "g<b>\"&'\x01";
  m.source = "s<i>";
  const std::string name = "a</script><b>\x02";
  m.saved.push_back({name, 16, "float32", {4}, "mod<&>", &reason});
  m.recomputed.push_back(name);
  m.banned.emplace_back(name, "ban <reason>");
  m.memory = PeakMemory{};
  m.memory->peak_at = name;
  m.live_at_peak.push_back({name, 16, MemoryCategory::Saved, LiveReason::Saved, name});
  ExplainTable explanations;
  explanations.add({name, "saved", "because <x>", {{"op", "aten.<mm>"}}});
  explanations.add({"other", "saved", "because <x>", {{"op", "aten.<mm>"}}});
  std::ostringstream out;
  write_report_html(out, m, explanations, 0);
  const std::string page = out.str();
  CHECK(count(page, "</script>") == 3);  // the blobs' names hold </script> as \u003c/script>
  CHECK(page.find("<b>") == std::string::npos);
  CHECK(page.find("<i>") == std::string::npos);
  CHECK(page.find('\x01') == std::string::npos);
  CHECK(page.find("g&lt;b&gt;&quot;&amp;&#39;") != std::string::npos);
  CHECK(page.find("a&lt;/script&gt;&lt;b&gt;") != std::string::npos);
  CHECK(page.find("\\u003c/script>") != std::string::npos);
  // Repeated texts are stored once.
  CHECK(count(page, "because \\u003cx>") == 1);
}
