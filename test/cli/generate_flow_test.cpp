// The generate and flow commands as a user runs them: generate writes a
// graph the main command partitions, the same bytes every time; flow writes
// PyTorch's network for gpt2_124m (same counts as the corpus file).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "cli/tool_runner.h"

namespace {

using pt::test::read_all;
using pt::test::run_tool;
using pt::test::TempDir;
using pt::test::ToolResult;

const std::vector<std::string> kSmall{"generate", "--layers", "2",   "--hidden", "64", "--heads",
                                      "4",        "--seq",    "32", "--batch",  "2",  "--vocab", "500"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("generate writes a graph the main command partitions, deterministically") {
  TempDir dir;
  for (const char* extra : {"", "--checkpoint"}) {
    INFO("generate " << extra);
    std::vector<std::string> args = kSmall;
    if (*extra) args.push_back(extra);
    const ToolResult a = run_tool(with(args, {"-o", dir.file("a.pb")}));
    REQUIRE(a.exit_code == 0);
    CHECK(contains(a.out, "2 layers"));
    const ToolResult b = run_tool(with(args, {"-o", dir.file("b.pb")}));
    REQUIRE(b.exit_code == 0);
    CHECK(read_all(dir.file("a.pb")) == read_all(dir.file("b.pb")));
    const ToolResult p = run_tool({"--input", dir.file("a.pb")});
    CHECK(p.exit_code == 0);
    CHECK(contains(p.out, "saved"));
  }
}

TEST_CASE("generate refuses inconsistent sizes with exit code 2") {
  TempDir dir;
  const ToolResult r = run_tool({"generate", "--layers", "1", "--hidden", "10", "--heads", "3", "-o", dir.file("g.pb")});
  CHECK(r.exit_code == 2);
  CHECK(contains(r.err, "multiple of --heads"));
}

TEST_CASE("flow writes the first solve's network in DIMACS") {
  TempDir dir;
  const std::string gpt2 = std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb";
  const ToolResult r = run_tool({"flow", "--input", gpt2, "--dimacs", dir.file("g.dimacs")});
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.out, "3450 vertices, 4262 arcs"));
  const std::string text = read_all(dir.file("g.dimacs"));
  CHECK(contains(text, "\np max 3450 4262\n"));
  CHECK(contains(text, "PyTorch defaults"));
  const ToolResult out = run_tool({"flow", "-i", gpt2, "--set", "dist_from_bw_base=1.0", "--dimacs", "-"});
  REQUIRE(out.exit_code == 0);
  CHECK(contains(out.out, "dist_from_bw_base=1"));
  CHECK(contains(out.out, "\np max "));
}

TEST_CASE("a steep dist_from_bw_base still gives an exact cut; a weight past a double is refused in one line") {
  // At 1.9 the capacities sum past 2^64 (the flow network's infinite number
  // is one more than their sum): the components that need it are solved in
  // wide integers (partition/capacity.h).
  const std::string gpt2 = std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb";
  const ToolResult steep = run_tool({"--input", gpt2, "--set", "dist_from_bw_base=1.9", "-v"});
  CHECK(steep.exit_code == 0);
  // The value networkx's preflow_push (PyTorch's solver) gives on the same network, in Python integers.
  CHECK(contains(steep.err, "saved 261 values, recomputed 88 ops, cut value 6507503047\n"));
  const ToolResult flow = run_tool({"flow", "-i", gpt2, "--set", "dist_from_bw_base=1.9", "--dimacs", "-"});
  REQUIRE(flow.exit_code == 0);
  CHECK(contains(flow.out, "c infinite capacity written as 1475620004011504585244968896271462\n"));
  // 3^1000 overflows a double, as it does in PyTorch's float arithmetic.
  const ToolResult overflow =
      run_tool({"--input", gpt2, "--set", "dist_from_bw_base=3", "--set", "dist_from_bw_cap=1000"});
  CHECK(overflow.exit_code == 2);
  REQUIRE(overflow.err_lines().size() == 1);
  CHECK(contains(overflow.err, "overflows a double"));
}
