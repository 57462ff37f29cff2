// The memory timeline's SVG: one series stacked by category, several as
// lines, the peak and the forward/backward boundary marked, names escaped,
// and the file bounded by its points, not by the graph.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "report/linear_ce.h"
#include "report/memory_plot_svg.h"

using namespace pt;

namespace {

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// A series of `steps` steps, each its own point, whose names hold markup.
MemoryPlotSeries synthetic(size_t steps, std::string label) {
  MemoryPlotSeries s;
  s.label = std::move(label);
  s.steps = steps;
  s.backward_from = steps / 2;
  for (size_t i = 0; i < steps; ++i) {
    MemoryPlotPoint p;
    p.first_step = p.last_step = p.step = i;
    p.node = "n<" + std::to_string(i) + "&\"\x01";
    p.bytes = {100, 10 * i, 0, 5};
    p.largest.push_back({"v<" + std::to_string(i) + ">", 10 * i, MemoryCategory::Saved, "saved for the backward"});
    s.points.push_back(std::move(p));
  }
  s.peak_point = steps - 1;
  s.peak_bytes = total_bytes(s.points.back().bytes);
  s.peak_at = s.points.back().node;
  return s;
}

}  // namespace

TEST_CASE("one series: stacked categories, peak and boundary marked, names escaped") {
  std::ostringstream out;
  write_memory_svg(out, "g<1>", {synthetic(10, "")});
  const std::string svg = out.str();
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(count(svg, "class=\"area\"") == kMemoryCategoryCount);
  CHECK(count(svg, "class=\"boundary\"") == 1);
  CHECK(count(svg, "class=\"peak\"") == 1);
  CHECK(count(svg, "class=\"hover\"") == 10);
  CHECK(svg.find("peak 195 B at n&lt;9&amp;&quot;") != std::string::npos);
  CHECK(svg.find("v&lt;9&gt;") != std::string::npos);  // a largest member in the hover text
  CHECK(svg.find("n<") == std::string::npos);
  CHECK(svg.find('\x01') == std::string::npos);
  CHECK(svg.find("<script") == std::string::npos);
  for (const char* legend : {"inputs", "saved", "gradients", "temporaries"}) CHECK(svg.find(legend) != std::string::npos);
}

TEST_CASE("several series: one line and one peak each") {
  std::ostringstream out;
  write_memory_svg(out, "g", {synthetic(8, "A"), synthetic(12, "B")});
  const std::string svg = out.str();
  CHECK(count(svg, "class=\"line\"") == 2);
  CHECK(count(svg, "class=\"area\"") == 0);
  CHECK(count(svg, "class=\"peak\"") == 2);
  CHECK(count(svg, "class=\"boundary\"") == 2);
  CHECK(svg.find("A: peak") != std::string::npos);
  CHECK(svg.find("B: peak") != std::string::npos);
}

TEST_CASE("linear_ce's timeline: the peak point is the report's peak, the curve bounded") {
  const test::LinearCe lce(1.1);
  ReportModel m = build_report({test::linear_ce_graph(), lce.partitioned, lce.settings, parse_device("h100"), {}, {},
                                true});
  REQUIRE(m.memory_plot);
  const MemoryPlotSeries& s = *m.memory_plot;
  CHECK(s.points.size() <= kMemoryPlotPoints);
  CHECK(s.points[s.peak_point].node == m.memory->peak_at);
  CHECK(total_bytes(s.points[s.peak_point].bytes) == m.memory->peak_bytes);
  CHECK(s.backward_from > 0);
  CHECK(s.backward_from < s.steps);
  std::ostringstream out;
  write_memory_svg(out, m.graph, {s});
  CHECK(out.str().find("at " + m.memory->peak_at) != std::string::npos);
}

TEST_CASE("a long timeline stays small: a few hundred points of 10^5 steps") {
  const std::string big = [] {
    std::ostringstream out;
    write_memory_svg(out, "g", {synthetic(kMemoryPlotPoints, "")});
    return out.str();
  }();
  // Every point carries its hover text; the file grows with the points only.
  CHECK(big.size() < 400 * 1000);
}
