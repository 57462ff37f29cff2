// The settings at the command line: "did you mean" for commands, keys, sweep
// keys and node names; op-class edits by target; TOML files; the random
// numbers warning; the ilp solver's time limit; generate's size limits.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/tool_runner.h"

namespace {

using pt::test::run_tool;
using pt::test::TempDir;
using pt::test::ToolResult;

const std::string kLinear = std::string(PT_SAMPLE_DIR) + "/linear_ce.pb";
const std::string kDropout = std::string(PT_TEST_DIR) + "/corpus/gpt2_dropout_l2.pb";
const std::string kGpt2 = std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string single_error(const ToolResult& r) {
  const auto lines = r.err_lines();
  REQUIRE(lines.size() == 1);
  return lines[0];
}

}  // namespace

TEST_CASE("a mistyped command, sweep key or node name gives the nearest name on one line") {
  const ToolResult command = run_tool({"inspekt", kLinear});
  CHECK(command.exit_code == 2);
  CHECK(single_error(command) == "partition_tool: error: unknown command 'inspekt' (did you mean 'inspect'?)");
  const ToolResult key = run_tool({"sweep", "-i", kLinear, "--key", "dist_from_bw_bse", "--values", "1.1,1.2"});
  CHECK(key.exit_code == 2);
  CHECK(contains(single_error(key), "'dist_from_bw_bse' is not a scalar setting (did you mean 'dist_from_bw_base'?)"));
  const ToolResult node = run_tool({"explain", "-i", kLinear, "--node", "convert_element_type_22"});
  CHECK(node.exit_code == 2);
  CHECK(contains(single_error(node), "no node named 'convert_element_type_22' (did you mean 'convert_element_type_2'?)"));
  const ToolResult set = run_tool({"-i", kLinear, "--set", "aggresive_recomputation=true"});
  CHECK(set.exit_code == 2);
  CHECK(contains(single_error(set), "(did you mean 'aggressive_recomputation'?)"));
}

TEST_CASE("--set op-class edits take the targets the tool prints, and refuse unknown ops") {
  const ToolResult by_target = run_tool({"-i", kLinear, "--set", "recomputable_ops.add=aten.mm.default", "--report-json", "-"});
  const ToolResult by_packet = run_tool({"-i", kLinear, "--set", "recomputable_ops.add=aten.mm", "--report-json", "-"});
  CHECK(by_target.exit_code == 0);
  CHECK(contains(by_target.out, "\"recomputable_ops\""));
  const auto cut = [](const std::string& json) { return json.substr(json.find("\"saved_values\""), 200); };
  CHECK(cut(by_target.out) == cut(by_packet.out));
  const ToolResult unknown = run_tool({"-i", kLinear, "--set", "recomputable_ops.add=aten.mn"});
  CHECK(unknown.exit_code == 2);
  CHECK(single_error(unknown) ==
        "partition_tool: error: setting recomputable_ops.add: 'aten.mn' is no op the tool knows (did you mean 'aten.mm'?)");
}

TEST_CASE("--config: TOML errors name the file and line; out-of-range values are errors") {
  TempDir dir;
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name)) << text;
    return dir.file(name);
  };
  const ToolResult unclosed = run_tool({"-i", kLinear, "--config", write("a.toml", "cse = true\nview_ops.add = [\"aten.t\"\n")});
  CHECK(unclosed.exit_code == 2);
  CHECK(single_error(unclosed).starts_with("partition_tool: error: " + dir.file("a.toml") + ":2: "));
  const ToolResult section = run_tool({"-i", kLinear, "--config", write("b.toml", "[partitioner]\ncse = true\n")});
  CHECK(section.exit_code == 2);
  CHECK(contains(single_error(section), dir.file("b.toml") + ":1: unknown section [partitioner]"));
  const ToolResult range = run_tool({"-i", kLinear, "--set", "max_dist_from_bw=-1"});
  CHECK(range.exit_code == 2);
  CHECK(single_error(range) == "partition_tool: error: setting max_dist_from_bw = -1: must be 0 or more");
}

TEST_CASE("random numbers: the default plan recomputes no seed; PyTorch's choice is reported with a warning") {
  const std::vector<std::string> base = {"-i", kDropout, "--set", "activation_memory_budget=0.5"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tool(args);
  };
  const ToolResult safe = with({"--report"});
  CHECK(safe.exit_code == 0);
  CHECK_FALSE(contains(safe.out, "warning:"));
  CHECK(contains(safe.out, "cannot recompute: random seed"));
  const std::string warning = "the plan changes the training's random numbers";
  const ToolResult text = with({"--set", "ban_recompute_rng_seeds=false", "--report"});
  CHECK(text.exit_code == 0);
  CHECK(contains(text.out, "  warning: " + warning));
  const ToolResult json = with({"--set", "ban_recompute_rng_seeds=false", "--report-json", "-"});
  CHECK(contains(json.out, "\"warnings\": [\n    \"" + warning));
  const ToolResult md = with({"--set", "ban_recompute_rng_seeds=false", "--report-md", "-"});
  CHECK(contains(md.out, "> **Warning:** " + warning));
  // explain says which rule won.
  const ToolResult seed = run_tool({"explain", "-i", kDropout, "--node", "inductor_seeds_default", "--set",
                                    "activation_memory_budget=0.5"});
  CHECK(seed.exit_code == 0);
  CHECK(contains(seed.out, "cannot recompute: random seed"));
  CHECK_FALSE(contains(seed.out, ": recomputed"));
  const ToolResult recomputed = run_tool({"explain", "-i", kDropout, "--node", "inductor_seeds_default", "--set",
                                          "activation_memory_budget=0.5", "--set", "ban_recompute_rng_seeds=false"});
  CHECK(contains(recomputed.out, "inductor_seeds_default: recomputed"));
  CHECK(contains(recomputed.out, "other random numbers"));
  // Banned by the allowlist, recomputed by the budget's inputs-only stage:
  // the budget's rule wins, and explain says so.
  const ToolResult lifted = run_tool({"explain", "-i", kDropout, "--node", "inductor_lookup_seed_default", "--set",
                                      "activation_memory_budget=0", "--set", "ban_recompute_rng_seeds=false", "--json"});
  CHECK(contains(lifted.out, "\"status\": \"recomputed\""));
  CHECK(contains(lifted.out, "the memory budget wins over this ban"));
}

TEST_CASE("the ilp solver stops at its time limit and the report says what it used") {
  const ToolResult r = run_tool({"-i", kGpt2, "--set", "activation_memory_budget=0.5", "--set",
                                 "activation_memory_budget_solver=ilp", "--set", "ilp_time_limit=0.05", "--report"});
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "  warning: ilp solver: time limit of 0.05 s reached"));
}

TEST_CASE("generate refuses sizes it cannot build, with one line, before allocating") {
  TempDir dir;
  const ToolResult layers = run_tool({"generate", "--layers", "1000000000", "-o", dir.file("g.pb")});
  CHECK(layers.exit_code == 2);
  CHECK(contains(single_error(layers), "--layers 1000000000 makes more nodes than the 20000000 the tool reads"));
  const ToolResult seq = run_tool({"generate", "--layers", "2", "--seq", "1000000000", "-o", dir.file("g.pb")});
  CHECK(seq.exit_code == 2);
  CHECK(contains(single_error(seq), "tensors too large for the tool's 64-bit byte counts"));
  CHECK_FALSE(std::filesystem::exists(dir.file("g.pb")));
  const ToolResult fits = run_tool({"generate", "--layers", "2", "--seq", "64", "--hidden", "64", "--heads", "2",
                                    "--vocab", "100", "-o", dir.file("g.pb")});
  CHECK(fits.exit_code == 0);
}
