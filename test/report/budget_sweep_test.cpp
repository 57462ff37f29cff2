// The memory-budget sweep on gpt2_124m (issue: 21 values, monotone in saved
// bytes), its extra columns (peak memory, recomputed FLOPs, step time), the
// same rows whatever the thread count, and the Pareto plot.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "graph/graph_io.h"
#include "graph/validate.h"
#include "report/linear_ce.h"
#include "report/sweep.h"
#include "report/sweep_plot.h"
#include "support/reference.h"

namespace {

const pt::Graph& gpt2() {
  static const pt::Graph g = [] {
    const std::string path = pt::test::corpus_graph_path("gpt2_124m");
    return pt::validate(pt::read_graph(path, pt::format_from_path(path)), path);
  }();
  return g;
}

const pt::SweepResult& budget_sweep(unsigned jobs) {
  static std::map<unsigned, pt::SweepResult> cache;
  auto it = cache.find(jobs);
  if (it == cache.end()) {
    it = cache.emplace(jobs, pt::run_sweep(gpt2(), pt::Settings{}, "activation_memory_budget",
                                           pt::sweep_values_from_range("0:1:0.05"), pt::parse_device("h200"), {}, jobs))
             .first;
  }
  return it->second;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("gpt2_124m budget sweep: 21 rows, saved bytes monotone, the ends are the extremes") {
  const pt::SweepResult& r = budget_sweep(2);
  REQUIRE(r.rows.size() == 21);
  CHECK(r.rows.front().value == "0");
  CHECK(r.rows.back().value == "1");
  for (size_t i = 0; i < r.rows.size(); ++i) {
    CAPTURE(r.rows[i].value);
    REQUIRE(r.rows[i].error.empty());
    CHECK(r.rows[i].peak_bytes > 0);
    CHECK(r.rows[i].peak_bytes >= r.rows[i].saved_bytes);
    if (i > 0) {
      // More budget never saves fewer bytes, and never recomputes more.
      CHECK(r.rows[i].saved_bytes >= r.rows[i - 1].saved_bytes);
      CHECK(r.rows[i].recomputed_flops <= r.rows[i - 1].recomputed_flops);
    }
  }
  // Budget 0 saves only the inputs and recomputes the matmuls; budget 1 is
  // the default cut, which recomputes no matmul.
  CHECK(r.rows.front().recomputed_flops > 100'000'000'000ULL);
  CHECK(r.rows.back().recomputed_flops == 0);
  CHECK(r.rows.front().saved_bytes < r.rows.back().saved_bytes);
  CHECK(std::count_if(r.rows.begin(), r.rows.end(), [](const pt::SweepRow& row) { return row.cut_changed; }) >= 3);
}

TEST_CASE("sweep rows do not depend on the thread count") {
  const pt::SweepResult& one = budget_sweep(1);
  const pt::SweepResult& two = budget_sweep(2);
  REQUIRE(one.rows.size() == two.rows.size());
  std::ostringstream a, b;
  pt::write_sweep_csv(a, one);
  pt::write_sweep_csv(b, two);
  CHECK(a.str() == b.str());
  for (size_t i = 0; i < one.rows.size(); ++i) CHECK(one.rows[i].saved == two.rows[i].saved);
}

TEST_CASE("sweep columns: peak memory, recomputed FLOPs and step time in CSV; text fits 100 columns") {
  const pt::SweepResult& r = budget_sweep(2);
  std::ostringstream csv, text;
  pt::write_sweep_csv(csv, r);
  CHECK(csv.str().rfind("activation_memory_budget,cut_changed,saved_count,saved_bytes,recomputed_count,forward_bytes,"
                        "forward_seconds,backward_bytes,backward_seconds,peak_bytes,peak_at,recomputed_flops,"
                        "step_seconds,error\n",
                        0) == 0);
  pt::write_sweep_text(text, r);
  std::istringstream lines(text.str());
  size_t n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    CAPTURE(line);
    CHECK(line.size() <= 100);
  }
  CHECK(n == 24);  // two title lines, header, 21 rows
  CHECK(text.str().find("peak memory") != std::string::npos);
  CHECK(text.str().find("step time") != std::string::npos);
}

TEST_CASE("Pareto rows: none dominated, ascending memory; the SVG draws one point per distinct row") {
  const pt::SweepResult& r = budget_sweep(2);
  const auto front = pt::pareto_rows(r);
  REQUIRE(!front.empty());
  for (size_t k = 0; k < front.size(); ++k) {
    const auto& p = r.rows[front[k]];
    if (k > 0) CHECK(p.saved_bytes >= r.rows[front[k - 1]].saved_bytes);
    for (const auto& q : r.rows) {
      const bool dominates = q.saved_bytes <= p.saved_bytes && q.recomputed_flops <= p.recomputed_flops &&
                             (q.saved_bytes < p.saved_bytes || q.recomputed_flops < p.recomputed_flops);
      CHECK_FALSE(dominates);
    }
  }
  std::set<std::pair<uint64_t, uint64_t>> distinct;
  for (const auto& row : r.rows) distinct.insert({row.saved_bytes, row.recomputed_flops});
  std::ostringstream svg;
  pt::write_sweep_svg(svg, r);
  const std::string s = svg.str();
  CHECK(s.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(s.find("</svg>\n") == s.size() - 7);
  CHECK(count(s, "<circle ") == distinct.size());
  CHECK(count(s, "fill=\"#d9480f\"/>") >= 1);
  CHECK(s.find("saved memory vs. recomputation, sweeping activation_memory_budget") != std::string::npos);
  // On this sweep more saved bytes always buy less recomputation: every
  // distinct point but budget 1 (which saves more for no FLOP gain over 0.75)
  // is on the frontier.
  CHECK(front.size() >= distinct.size() - 1);
  std::ostringstream peak;
  pt::write_sweep_svg(peak, r, pt::PlotMemory::Peak);
  CHECK(peak.str().find("peak activation memory (memory.peak_bytes)") != std::string::npos);
}

TEST_CASE("a plot of rows without a finite cut says so; a one-point sweep still draws") {
  pt::SweepResult r;
  r.graph = "g<&>";
  r.key = "k";
  r.device = "h100";
  pt::SweepRow ok;
  ok.value = "1";
  ok.peak_bytes = 1000;
  pt::SweepRow bad;
  bad.value = "2";
  bad.error = "no finite cut";
  r.rows = {ok, bad};
  std::ostringstream svg;
  pt::write_sweep_svg(svg, r);
  CHECK(svg.str().find("1 without a finite cut not drawn") != std::string::npos);
  CHECK(svg.str().find("g&lt;&amp;&gt;") != std::string::npos);
  CHECK(count(svg.str(), "<circle ") == 1);
  CHECK(pt::pareto_rows(r) == std::vector<size_t>{0});
}
