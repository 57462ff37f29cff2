// End to end on the crafted files of test/robustness/ (infeasible graphs,
// odd but valid graphs, fuzzing regressions): `partition_tool --input F
// --output out.pb --report-json report.json` exits with the listed code. A
// failure prints exactly one line on stderr naming the file and containing
// the expected text, nothing on stdout, and writes no file at all; a
// success prints nothing on stderr and writes both files.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>

#include "cli/tool_runner.h"
#include "robustness/expected_outcomes.h"

TEST_CASE("expected.txt lists every crafted file") {
  const auto expected = pt::test::read_expected_outcomes();
  std::set<std::string> listed;
  for (const auto& e : expected) listed.insert(e.file);
  CHECK(listed.size() == expected.size());
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::directory_iterator(pt::test::robustness_dir())) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".pb" || ext == ".pbtxt" || ext == ".json") present.insert(entry.path().filename().string());
  }
  CHECK(present == listed);
}

TEST_CASE("each crafted file gives its exit code; a failure one line on stderr and no output file") {
  for (const auto& e : pt::test::read_expected_outcomes()) {
    CAPTURE(e.file);
    pt::test::TempDir work;
    const pt::test::ToolResult r = pt::test::run_tool(
        {"--input", pt::test::robustness_dir() + "/" + e.file, "--output", "out.pb", "--report-json", "report.json"},
        work.path().string());
    CAPTURE(r.err);
    CHECK(r.exit_code == e.exit_code);
    if (e.exit_code == 0) {
      CHECK(r.err.empty());
      CHECK(std::filesystem::is_regular_file(work.path() / "out.pb"));
      CHECK(std::filesystem::is_regular_file(work.path() / "report.json"));
      continue;
    }
    const auto lines = r.err_lines();
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].starts_with("partition_tool: error: "));
    CHECK(lines[0].find(e.file) != std::string::npos);
    CHECK(lines[0].find(e.substring) != std::string::npos);
    CHECK(r.out.empty());
    CHECK(std::filesystem::is_empty(work.path()));
  }
}

// A fuzzer finding: under a memory budget the knapsack's candidates include
// 'ne', a value with a 0 dimension. The greedy solver divides runtime by
// memory (PyTorch raises ZeroDivisionError); the tool says so about the node
// and the setting, exit 2, instead of an internal error. dp takes it.
TEST_CASE("a 0-byte knapsack candidate: the greedy solver's one-line error, dp solves") {
  const std::string file = pt::test::robustness_dir() + "/zero_byte_knapsack_item.json";
  for (const std::string solver : {"greedy", "dp"}) {
    CAPTURE(solver);
    pt::test::TempDir work;
    const pt::test::ToolResult r =
        pt::test::run_tool({"--input", file, "--output", "out.pb", "--set", "activation_memory_budget=0.1", "--set",
                            "activation_memory_budget_solver=" + solver},
                           work.path().string());
    CAPTURE(r.err);
    if (solver == "dp") {
      CHECK(r.exit_code == 0);
      CHECK(std::filesystem::is_regular_file(work.path() / "out.pb"));
      continue;
    }
    CHECK(r.exit_code == 2);
    const auto lines = r.err_lines();
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find("zero_byte_knapsack_item.json: node 'ne': val holds 0 bytes") != std::string::npos);
    CHECK(lines[0].find("activation_memory_budget_solver=greedy") != std::string::npos);
    CHECK(std::filesystem::is_empty(work.path()));
  }
}
