// The report commands as a user runs them (the built partition_tool):
// --report / --report-json / --report-md, diff's exit codes, sweep's CSV,
// explain, dot, and each subcommand's --help.
#include <doctest/doctest.h>

#include "support/relative.h"

#include <fstream>
#include <iterator>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "cli/tool_runner.h"

namespace {

using pt::test::run_tool;
using pt::test::TempDir;
using pt::test::ToolResult;

const std::string kLinear = std::string(PT_SAMPLE_DIR) + "/linear_ce.pb";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

google::protobuf::Struct parse_json(const std::string& text) {
  google::protobuf::Struct s;
  REQUIRE(google::protobuf::util::JsonStringToMessage(text, &s).ok());
  return s;
}

double number_at(const google::protobuf::Struct& s, std::initializer_list<std::string> path) {
  const google::protobuf::Struct* at = &s;
  std::vector<std::string> keys(path);
  for (size_t i = 0; i + 1 < keys.size(); ++i) at = &at->fields().at(keys[i]).struct_value();
  return at->fields().at(keys.back()).number_value();
}

}  // namespace

TEST_CASE("the main command writes the text, JSON and Markdown reports") {
  const ToolResult text = run_tool({"--input", kLinear, "--report", "--device", "a100"});
  CHECK(text.exit_code == 0);
  CHECK(contains(text.out, "Summary\n  saved          7 values, 3.42 GB"));
  CHECK(contains(text.out, "on a100 (1.555 TB/s, 312 TFLOP/s)"));

  TempDir dir;
  const std::string json_path = dir.file("r.json"), md_path = dir.file("r.md");
  const ToolResult files = run_tool({"--input", kLinear, "--report-json", json_path, "--report-md", md_path});
  CHECK(files.exit_code == 0);
  const auto json = parse_json(pt::test::read_all(json_path));
  CHECK(number_at(json, {"bandwidth", "forward", "bytes_loaded"}) == 6793000458.0);
  CHECK(json.fields().at("bandwidth").struct_value().fields().at("device").struct_value().fields().at("name")
            .string_value() == "h100");
  CHECK(contains(pt::test::read_all(md_path), "## partition_tool report: `linear_ce`"));

  const ToolResult to_stdout = run_tool({"--input", kLinear, "--report-json", "-", "--device", "4.8e12"});
  CHECK(to_stdout.exit_code == 0);
  CHECK(number_at(parse_json(to_stdout.out), {"bandwidth", "device", "bytes_per_second"}) == 4.8e12);

  const ToolResult top = run_tool({"--input", kLinear, "--report", "--top", "3"});
  CHECK(contains(top.out, "... 4 more not shown (--top 0 shows all)"));
}

TEST_CASE("a bad --device or --bandwidth-option exits 2 with one error line") {
  const ToolResult device = run_tool({"--input", kLinear, "--report", "--device", "tpu"});
  CHECK(device.exit_code == 2);
  CHECK(contains(device.err, "--device tpu: expected a100, h100, h200"));
  const ToolResult option = run_tool({"--input", kLinear, "--report", "--bandwidth-option", "x=1"});
  CHECK(option.exit_code == 2);
  CHECK(contains(option.err, "unknown bandwidth option 'x'"));
}

TEST_CASE("diff exits 1 when the cuts differ, 0 when identical, 2 on error") {
  const ToolResult differ = run_tool({"diff", "--input", kLinear, "--set-a", "dist_from_bw_base=1.1", "--set-b",
                                      "dist_from_bw_base=1.2", "--device", "a100"});
  CHECK(differ.exit_code == 1);
  CHECK(contains(differ.out, "Saved only in A (3)\n  mm_default_2"));
  CHECK(contains(differ.out, "Saved only in B (1)\n  convert_element_type_3"));
  CHECK(contains(differ.out, "+6.59 GB"));
  CHECK(contains(differ.out, "+4.24 ms"));

  const ToolResult same = run_tool({"diff", "--input", kLinear, "--set-b", "dist_from_bw_base=1.1"});
  CHECK(same.exit_code == 0);
  CHECK(contains(same.out, "the cuts are identical: both save the same 7 values"));

  const ToolResult missing = run_tool({"diff", "--input", "no_such_graph.pb"});
  CHECK(missing.exit_code == 2);
  const ToolResult bad_setting = run_tool({"diff", "--input", kLinear, "--set-a", "no_such_key=1"});
  CHECK(bad_setting.exit_code == 2);
  const ToolResult half = run_tool({"diff", "--report-a", "a.json"});
  CHECK(half.exit_code == 2);
}

TEST_CASE("diff --json, and diff of two saved reports") {
  const ToolResult json = run_tool({"diff", "--input", kLinear, "--set-b", "dist_from_bw_base=1.2", "--json"});
  CHECK(json.exit_code == 1);
  const auto d = parse_json(json.out);
  CHECK(d.fields().at("identical").bool_value() == false);
  CHECK(number_at(d, {"delta", "forward", "bytes"}) == 6587088896.0);
  CHECK(d.fields().at("saved_only_b").list_value().values(0).struct_value().fields().at("name").string_value() ==
        "convert_element_type_3");

  TempDir dir;
  const std::string a = dir.file("a.json"), b = dir.file("b.json");
  REQUIRE(run_tool({"--input", kLinear, "--report-json", a}).exit_code == 0);
  REQUIRE(run_tool({"--input", kLinear, "--report-json", b, "--set", "dist_from_bw_base=1.2"}).exit_code == 0);
  const ToolResult reports = run_tool({"diff", "--report-a", a, "--report-b", b});
  CHECK(reports.exit_code == 1);
  CHECK(contains(reports.out, "B: dist_from_bw_base=1.2 (" + b + ")"));
  CHECK(contains(reports.out, "+6.59 GB"));
  CHECK(run_tool({"diff", "--report-a", a, "--report-b", a}).exit_code == 0);
}

TEST_CASE("the JSON report's budget object: null without a budget; the cascade and knapsack with one") {
  const auto none = parse_json(run_tool({"--input", kLinear, "--report-json", "-"}).out);
  CHECK(none.fields().at("budget").kind_case() == google::protobuf::Value::kNullValue);
  const ToolResult half = run_tool({"--input", kLinear, "--set", "activation_memory_budget=0.5", "--report-json", "-"});
  REQUIRE(half.exit_code == 0);
  const auto report = parse_json(half.out);
  const auto& b = report.fields().at("budget").struct_value();
  CHECK(b.fields().at("stage").string_value() == "knapsack");
  CHECK(report.fields().at("budget_stage").string_value() == "knapsack");
  CHECK(b.fields().at("solves").list_value().values_size() == 4);
  CHECK(b.fields().at("min_gb").number_value() == pt::test::relative(0.127788544));
  CHECK(b.fields().at("max_gb").number_value() == pt::test::relative(3.422152194));
  // The 3.29 GB matmul output is the largest item; half the budget cannot keep it.
  const auto& first = b.fields().at("items").list_value().values(0).struct_value();
  CHECK(first.fields().at("node").string_value() == "mm_default_2");
  CHECK(first.fields().at("bytes").number_value() == 3294101504.0);
  CHECK_FALSE(first.fields().at("kept").bool_value());
}

TEST_CASE("sweep --plot writes an SVG atomically, never over the input, and --jobs does not change rows") {
  TempDir dir;
  const std::string svg = dir.file("budget.svg");
  const ToolResult r = run_tool({"sweep", "-i", kLinear, "-k", "activation_memory_budget", "--range", "0:1:0.25",
                                 "--plot", svg, "--csv", "--jobs", "1"});
  CHECK(r.exit_code == 0);
  std::ifstream in(svg);
  const std::string drawn((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(drawn.rfind("<svg ", 0) == 0);
  CHECK(contains(drawn, "linear_ce: saved memory vs. recomputation"));
  const ToolResult parallel = run_tool({"sweep", "-i", kLinear, "-k", "activation_memory_budget", "--range",
                                        "0:1:0.25", "--csv", "--jobs", "3"});
  CHECK(parallel.out == r.out);
  const ToolResult over_input =
      run_tool({"sweep", "-i", kLinear, "-k", "dist_from_bw_base", "--values", "1.1", "--plot", kLinear});
  CHECK(over_input.exit_code == 2);
  CHECK(run_tool({"sweep", "-i", kLinear, "-k", "dist_from_bw_base", "--values", "1.1", "--plot", svg, "--plot-x",
                  "nope"})
            .exit_code == 2);
}

TEST_CASE("sweep marks the flip; --csv and --json; bad keys exit 2") {
  const ToolResult csv =
      run_tool({"sweep", "--input", kLinear, "--key", "dist_from_bw_base", "--range", "1.0:1.5:0.05", "--csv"});
  CHECK(csv.exit_code == 0);
  CHECK(contains(csv.out, "\n1.1,false,7,"));
  CHECK(contains(csv.out, "\n1.15,true,5,"));
  CHECK(contains(csv.out, "\n1.2,false,5,"));
  const ToolResult text = run_tool({"sweep", "--input", kLinear, "--key", "dist_from_bw_base", "--values", "1.1,1.2"});
  CHECK(contains(text.out, "the cut changes 1 time (marked *)"));
  const ToolResult json = run_tool({"sweep", "-i", kLinear, "-k", "ban_recompute_reductions", "--values", "true,false", "--json"});
  CHECK(json.exit_code == 0);
  CHECK(parse_json(json.out).fields().at("rows").list_value().values_size() == 2);
  CHECK(run_tool({"sweep", "-i", kLinear, "-k", "cse", "--range", "0:1:1"}).exit_code == 2);
  CHECK(run_tool({"sweep", "-i", kLinear, "-k", "nope", "--values", "1"}).exit_code == 2);
  CHECK(run_tool({"sweep", "-i", kLinear, "-k", "dist_from_bw_base"}).exit_code == 2);
}

TEST_CASE("explain a banned node; dot draws the cut and refuses large graphs") {
  const ToolResult explain = run_tool({"explain", "--input", kLinear, "--node", "amax"});
  CHECK(explain.exit_code == 0);
  CHECK(contains(explain.out, "amax: saved\n"));
  CHECK(contains(explain.out, "  ban           cannot recompute: reduction op: 4 x its size (131 kB) < its inputs "
                              "(6.59 GB) [lifted\n                by: ban_recompute_reductions]\n"));
  CHECK(run_tool({"explain", "--input", kLinear, "--node", "nope"}).exit_code == 2);
  const ToolResult json = run_tool({"explain", "--input", kLinear, "--node", "amax", "--json"});
  CHECK(json.exit_code == 0);
  const auto x = parse_json(json.out);
  CHECK(x.fields().at("status").string_value() == "saved");
  CHECK(x.fields().at("facts").list_value().values(2).struct_value().fields().at("label").string_value() == "ban");

  const ToolResult dot = run_tool({"dot", "--input", kLinear});
  CHECK(dot.exit_code == 0);
  CHECK(contains(dot.out, "label=\"cut: 3.29 GB\""));
  const ToolResult refused = run_tool({"dot", "--input", kLinear, "--max-drawn", "20"});
  CHECK(refused.exit_code == 2);
  CHECK(contains(refused.err, "--around NODE --depth N"));
  CHECK(run_tool({"dot", "--input", kLinear, "--max-drawn", "20", "--around", "amax", "--depth", "1"}).exit_code == 0);
}

TEST_CASE("every report command's --help teaches: description, options, an example") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> helps = {
      {"explain", {"Explain why one node", "--input", "--node NAME", "--set KEY=VALUE", "--config FILE", "--json",
                   "Examples:", "partition_tool explain --input sample_graphs/linear_ce.pb --node amax"}},
      {"diff", {"Compare two cuts", "--set-a KEY=VALUE", "--set-b KEY=VALUE", "--config-a FILE", "--config-b FILE",
                "--report-a A.json", "--report-b B.json", "--device NAME|B/s", "--json", "--top N",
                "Exit codes: 0 the cuts are identical", "Examples:"}},
      {"sweep", {"Partition once per value", "--key KEY", "--values V1,V2,...", "--range START:STOP:STEP", "--csv",
                 "--json", "--device", "Examples:", "--range 1.0:1.5:0.05"}},
      {"dot", {"Graphviz DOT", "--around NODE", "--depth N", "--max-drawn N", "legend", "Examples:",
               "| dot -Tsvg"}},
  };
  for (const auto& help : helps) {
    const auto& command = help.first;  // no structured binding: clang 14 cannot capture one
    const auto& parts = help.second;
    const ToolResult r = run_tool({command, "--help"});
    CHECK(r.exit_code == 0);
    for (const auto& part : parts) {
      CAPTURE(command);
      CAPTURE(part);
      CHECK(contains(r.out, part));
    }
  }
  const ToolResult main_help = run_tool({"--help"});
  for (const char* part : {"--report-md PATH|-", "--top N", "--device NAME|B/s", "--bandwidth-option KEY=VALUE",
                           "explain", "diff", "sweep", "dot"}) {
    CAPTURE(std::string(part));
    CHECK(contains(main_help.out, part));
  }
}
