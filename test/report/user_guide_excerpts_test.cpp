// The user guide shows real output: its report, explain, diff and sweep
// excerpts must be what the built tool prints today, byte for byte.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "cli/tool_runner.h"

namespace {

using pt::test::run_tool;

const std::string kRoot = std::string(PT_SAMPLE_DIR) + "/..";
const std::string kLinear = "sample_graphs/linear_ce.pb";

std::string user_guide() {
  std::ifstream in(kRoot + "/docs/user_guide.md");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The tool runs from the repository root, as the guide's commands do.
pt::test::ToolResult run_in_root(std::vector<std::string> args) {
  for (auto& a : args) {
    if (a == kLinear) a = kRoot + "/" + kLinear;
  }
  return run_tool(args);
}

}  // namespace

TEST_CASE("the user guide's report excerpt is the report of linear_ce with --top 3") {
  const auto r = run_in_root({"--input", kLinear, "--report", "--top", "3"});
  REQUIRE(r.exit_code == 0);
  // The report names its input as given; the guide ran it from the root.
  std::string out = r.out;
  const std::string absolute = kRoot + "/" + kLinear;
  for (size_t at = out.find(absolute); at != std::string::npos; at = out.find(absolute)) {
    out.replace(at, absolute.size(), kLinear);
  }
  CHECK(user_guide().find("```\n" + out + "```") != std::string::npos);
}

TEST_CASE("the user guide's explain, diff and sweep excerpts are verbatim") {
  const std::string text = user_guide();
  const auto explain = run_in_root({"explain", "--input", kLinear, "--node", "amax"});
  CHECK(text.find(explain.out) != std::string::npos);
  const auto diff = run_in_root({"diff", "--input", kLinear, "--set-a", "dist_from_bw_base=1.1", "--set-b",
                                 "dist_from_bw_base=1.2", "--device", "a100"});
  CHECK(diff.exit_code == 1);
  CHECK(text.find(diff.out) != std::string::npos);
  const auto sweep =
      run_in_root({"sweep", "--input", kLinear, "--key", "dist_from_bw_base", "--range", "1.0:1.5:0.05", "--device", "a100"});
  // The guide shows the first eight lines and "...".
  std::string head;
  size_t at = 0;
  for (int line = 0; line < 8; ++line) at = sweep.out.find('\n', at) + 1;
  head = sweep.out.substr(0, at);
  CHECK(text.find(head + "...\n") != std::string::npos);
}

TEST_CASE("the user guide's memory-budget sweep of gpt2_124m is verbatim") {
  const auto sweep = run_tool({"sweep", "--input", std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb", "--key",
                               "activation_memory_budget", "--range", "0:1:0.2", "--device", "h200"});
  REQUIRE(sweep.exit_code == 0);
  CHECK(user_guide().find("--plot gpt2_budget.svg\n" + sweep.out + "```") != std::string::npos);
}
