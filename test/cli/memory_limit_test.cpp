// memory_limit through the command line: --memory-limit, --set, --config,
// diff and sweep (with its plot) mean the same limit; a limit no plan fits
// exits 3 with one line.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/tool_runner.h"

namespace {

using pt::test::run_tool;
using pt::test::TempDir;

// A small graph (258 nodes): these are tests of the command line, and the
// planner runs several times each (minutes under the sanitizers on gpt2_124m).
const std::string kGraph = std::string(PT_TEST_DIR) + "/corpus/sac_mlp.pb";

// The first "key": N in a JSON report (memory.peak_bytes comes before plan's).
uint64_t json_number(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  REQUIRE(at != std::string::npos);
  return std::stoull(json.substr(json.find(':', at) + 1));
}

uint64_t default_peak() {
  const auto r = run_tool({"--input", kGraph, "--report-json", "-"});
  REQUIRE(r.exit_code == 0);
  return json_number(r.out, "peak_bytes");
}

}  // namespace

TEST_CASE("--memory-limit, --set and --config give the same plan, within the limit") {
  // The default plan's own peak: a plan fits it whatever the models predict
  // (on this graph the inputs and the gradients make the peak, and no plan
  // fits much below it).
  const uint64_t limit = default_peak();
  const auto shorthand = run_tool({"--input", kGraph, "--memory-limit", std::to_string(limit), "--report-json", "-"});
  REQUIRE(shorthand.exit_code == 0);
  CHECK(json_number(shorthand.out, "peak_bytes") <= limit);
  CHECK(json_number(shorthand.out, "memory_limit") == limit);
  CHECK(shorthand.out.find("\"found_by\"") != std::string::npos);
  // At the default plan's peak the ILP proves its optimum: both costs are numbers.
  CHECK(shorthand.out.find("\"linear_seconds\": null") == std::string::npos);
  CHECK(shorthand.out.find("\"linear_optimum_seconds\": null") == std::string::npos);
  CHECK(shorthand.out.find("\"linear_optimum_seconds\": ") != std::string::npos);
  // With --no-timings the three reports are the same bytes, and the same
  // again in a second run: the plan search's time is a stage timing, not a
  // field of the plan.
  const auto quiet = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--input", kGraph});
    args.insert(args.end(), {"--report-json", "-", "--no-timings"});
    const auto r = run_tool(args);
    REQUIRE(r.exit_code == 0);
    return r.out;
  };
  TempDir dir;
  {
    std::ofstream(dir.file("limit.conf")) << "memory_limit = " << limit << "\n";
  }
  const std::string reference = quiet({"--memory-limit", std::to_string(limit)});
  CHECK(quiet({"--memory-limit", std::to_string(limit)}) == reference);
  CHECK(quiet({"--set", "memory_limit=" + std::to_string(limit)}) == reference);
  CHECK(quiet({"--config", dir.file("limit.conf")}) == reference);
  CHECK(reference.find("\"timings\": {}") != std::string::npos);
  CHECK(shorthand.out.find("\"plan\": ", shorthand.out.find("\"timings\"")) != std::string::npos);
  const auto text = run_tool({"--input", kGraph, "--memory-limit", std::to_string(limit), "--report"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("Plan (memory_limit") != std::string::npos);
  CHECK(text.out.find("next best") != std::string::npos);
}

TEST_CASE("a limit no plan fits exits 3 with one line") {
  const uint64_t limit = default_peak() / 100;
  const auto r = run_tool({"--input", kGraph, "--memory-limit", std::to_string(limit), "--report"});
  CHECK(r.exit_code == 3);
  CHECK(r.out.empty());
  REQUIRE(r.err_lines().size() == 1);
  CHECK(r.err.find("smallest peak reached is") != std::string::npos);
  const auto bad = run_tool({"--input", kGraph, "--memory-limit", "3 parsecs"});
  CHECK(bad.exit_code == 2);
}

TEST_CASE("diff and sweep read memory_limit") {
  const uint64_t peak = default_peak();
  const auto diff = run_tool({"diff", "--input", kGraph, "--set-b", "memory_limit=" + std::to_string(peak / 100)});
  CHECK(diff.exit_code == 3);  // no plan fits B's limit
  TempDir dir;
  // On this graph no plan fits below the default peak: the rows under 100%
  // exit with their reason, those from it up get plans.
  std::string values;
  for (int percent = 50; percent <= 110; percent += 10) {
    values += (values.empty() ? "" : ",") + std::to_string(peak * percent / 100);
  }
  const auto sweep = run_tool({"sweep", "--input", kGraph, "--key", "memory_limit", "--values", values, "--csv",
                               "--plot", dir.file("frontier.svg")});
  REQUIRE(sweep.exit_code == 0);
  // Each limit names its plan: the CSV's plan column, never empty on a row
  // that has one.
  const std::string header = sweep.out.substr(0, sweep.out.find('\n'));
  CHECK(header.find(",plan,error") != std::string::npos);
  int planned = 0;
  std::istringstream lines(sweep.out.substr(header.size() + 1));
  for (std::string row; std::getline(lines, row);) {
    if (row.back() != ',') continue;  // no plan: the error is the last cell
    CHECK(!row.ends_with(",,"));
    ++planned;
  }
  CHECK(planned == 2);  // 100% and 110%
  const auto text = run_tool({"sweep", "--input", kGraph, "--key", "memory_limit", "--values", values});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("    plan: ") != std::string::npos);
  const std::string svg = pt::test::read_all(dir.file("frontier.svg"));
  CHECK(svg.find("predicted step time vs. peak memory") != std::string::npos);
  CHECK(svg.find("activation_memory_budget=0.5 dp") != std::string::npos);
}

TEST_CASE("explain reads memory_limit: the node in the plan the main command writes") {
  const uint64_t limit = default_peak();
  const auto planned = run_tool({"explain", "--input", kGraph, "--node", "addmm", "--set",
                                 "memory_limit=" + std::to_string(limit), "--device", "h200", "--json"});
  REQUIRE(planned.exit_code == 0);
  CHECK(planned.out.find("\"plan\"") != std::string::npos);
  CHECK(planned.out.find("predicted on h200") != std::string::npos);
  const auto plain = run_tool({"explain", "--input", kGraph, "--node", "addmm", "--json"});
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find("\"plan\"") == std::string::npos);
  const auto none = run_tool({"explain", "--input", kGraph, "--node", "addmm", "--set",
                              "memory_limit=" + std::to_string(limit / 100)});
  CHECK(none.exit_code == 3);
  CHECK(none.err_lines().size() == 1);
}

TEST_CASE("a plan beyond the knobs has no cut, and every report format shows the plan") {
  // At the default plan's peak this graph's fastest plan is a block
  // checkpoint or a per-value search: a saved set chosen without a cut.
  const std::string limit = std::to_string(default_peak());
  TempDir dir;
  const auto r = run_tool({"--input", kGraph, "--memory-limit", limit, "--report", "--report-json",
                           dir.file("r.json"), "--report-md", dir.file("r.md"), "--report-html", dir.file("r.html")});
  REQUIRE(r.exit_code == 0);
  const std::string json = pt::test::read_all(dir.file("r.json"));
  const bool beyond_knobs = json.find("\"found_by\": \"block checkpoints\"") != std::string::npos ||
                            json.find("\"found_by\": \"per-value search\"") != std::string::npos;
  REQUIRE(beyond_knobs);
  CHECK(json.find("\"cut_value\": null") != std::string::npos);
  CHECK(r.out.find("none: the memory-limit plan chose the saved set") != std::string::npos);
  CHECK(r.out.find("memory-limit plan") != std::string::npos);
  CHECK(pt::test::read_all(dir.file("r.md")).find("No cut: the memory-limit plan chose the saved set") !=
        std::string::npos);
  const std::string html = pt::test::read_all(dir.file("r.html"));
  CHECK(html.find("<h2>Plan (memory_limit ") != std::string::npos);
  CHECK(html.find("none: the memory-limit plan chose the saved set") != std::string::npos);
}

TEST_CASE("diff names each side's plan, from graphs and from saved reports") {
  const std::string limit = "memory_limit=" + std::to_string(default_peak());
  const auto d = run_tool({"diff", "--input", kGraph, "--set-b", limit, "--json"});
  REQUIRE(d.exit_code <= 1);  // 0 or 1: the cuts are equal or differ
  CHECK(d.out.find("\"plan\": ") != std::string::npos);  // B's
  TempDir dir;
  const auto a = run_tool({"--input", kGraph, "--report-json", dir.file("a.json")});
  const auto b = run_tool({"--input", kGraph, "--set", limit, "--report-json", dir.file("b.json")});
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  const auto from_reports = run_tool({"diff", "--report-a", dir.file("a.json"), "--report-b", dir.file("b.json")});
  REQUIRE(from_reports.exit_code <= 1);
  const auto lines = from_reports.out.substr(0, from_reports.out.find("the cuts"));
  CHECK(lines.find("  A: defaults") != std::string::npos);
  CHECK(lines.find("; plan: ") != std::string::npos);
  CHECK(lines.find("; plan: ") > lines.find("  B: "));
}

TEST_CASE("a percentage limit is of the default plan's peak, in every command") {
  const uint64_t peak = default_peak();
  const auto whole = run_tool({"--input", kGraph, "--memory-limit", "100%", "--report-json", "-"});
  REQUIRE(whole.exit_code == 0);
  CHECK(json_number(whole.out.substr(whole.out.find("\"plan\": {")), "memory_limit") == peak);
  CHECK(whole.out.find("\"memory_limit_fraction\": 1") != std::string::npos);
  const auto text = run_tool({"--input", kGraph, "--memory-limit", "100%", "--report"});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("100% of the default plan's") != std::string::npos);
  const auto bytes = run_tool({"--input", kGraph, "--memory-limit", std::to_string(peak), "--report-json", "-"});
  REQUIRE(bytes.exit_code == 0);
  CHECK(bytes.out.find("\"memory_limit_fraction\": null") != std::string::npos);
  // The same plan as the limit in bytes.
  const auto chosen = [](const std::string& out) { return out.substr(out.find("\"chosen\":"), 200); };
  CHECK(chosen(whole.out) == chosen(bytes.out));
  TempDir dir;
  {
    std::ofstream(dir.file("limit.conf")) << "memory_limit = \"1%\"\n";
  }
  const auto none = run_tool({"--input", kGraph, "--config", dir.file("limit.conf")});
  CHECK(none.exit_code == 3);
  REQUIRE(none.err_lines().size() == 1);
  CHECK(none.err.find("1% of the default plan's") != std::string::npos);
  const auto sweep = run_tool({"sweep", "--input", kGraph, "--key", "memory_limit", "--values", "1%,100%,none",
                               "--csv"});
  REQUIRE(sweep.exit_code == 0);
  CHECK(sweep.out.find("\n1%,") != std::string::npos);
  CHECK(sweep.out.find("\n100%,") != std::string::npos);
  const auto bad = run_tool({"--input", kGraph, "--memory-limit", "0%"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("percentage") != std::string::npos);
}
