// The command line's conventions: errors that name their cause, one way to
// give the input, -q, CLI11's errors on one prefixed line, a bare call
// printing the usage; and CI in one call: several graphs in one run with one
// exit code and one report, the Markdown diff, JSON documents that carry a
// schema_version and compare byte for byte without timings.
#include <doctest/doctest.h>

#include "support/relative.h"

#include <filesystem>
#include <fstream>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "cli/tool_runner.h"

namespace {

namespace fs = std::filesystem;
using pt::test::read_all;
using pt::test::contains;
using pt::test::run_tool;
using pt::test::error_line;
using pt::test::TempDir;
using pt::test::ToolResult;

const std::string kLinear = std::string(PT_SAMPLE_DIR) + "/linear_ce.pb";
const std::string kTiny = std::string(PT_SAMPLE_DIR) + "/tiny_mlp.pbtxt";

google::protobuf::Struct json_of(const std::string& text) {
  google::protobuf::Struct s;
  REQUIRE(google::protobuf::util::JsonStringToMessage(text, &s).ok());
  return s;
}

}  // namespace

TEST_CASE("errors name the cause: a directory, an empty file, ONNX, a partition file") {
  TempDir work;
  fs::create_directories(work.file("dir"));
  std::ofstream(work.file("empty.pb")).close();
  std::ofstream(work.file("model.onnx")) << "onnx bytes";
  REQUIRE(run_tool({"--input", kTiny, "--output", work.file("p.pb")}).exit_code == 0);
  REQUIRE(run_tool({"--input", kTiny, "--output", work.file("p.json")}).exit_code == 0);
  const struct {
    std::string file, cause;
  } cases[] = {{work.file("dir"), "is a directory"},
               {work.file("empty.pb"), "the file is empty"},
               {work.file("model.onnx"), "ONNX files are not read; export the joint graph with the Python bridge"},
               {work.file("p.pb"), "a partition file (written by --output), not a joint graph"},
               {work.file("p.json"), "a partition file (written by --output), not a joint graph"}};
  for (const auto& c : cases) {
    CAPTURE(c.file);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"explain", "--input", c.file, "--node", "mm"},
          std::vector<std::string>{"convert", c.file, work.file("out.json")},
          std::vector<std::string>{"flow", c.file, "--dimacs", work.file("out.dimacs")}}) {
      const ToolResult r = run_tool(args);
      CHECK(r.exit_code == 2);
      CHECK(contains(error_line(r), c.cause));
    }
    CHECK_FALSE(fs::exists(work.file("out.json")));
    CHECK_FALSE(fs::exists(work.file("out.dimacs")));
  }
  const ToolResult empty = run_tool({"--input", work.file("empty.pb"), "--report-json", work.file("r.json")});
  CHECK(empty.exit_code == 2);
  CHECK_FALSE(fs::exists(work.file("r.json")));
}

TEST_CASE("inspect reads partition files") {
  TempDir work;
  REQUIRE(run_tool({"--input", kTiny, "--output", work.file("p.pb")}).exit_code == 0);
  const ToolResult text = run_tool({"inspect", work.file("p.pb")});
  CHECK(text.exit_code == 0);
  CHECK(contains(text.out, "partition of 'tiny_mlp'"));
  CHECK(contains(text.out, "forward graph: "));
  const ToolResult json = run_tool({"inspect", "-i", work.file("p.pb"), "--json"});
  CHECK(json.exit_code == 0);
  const auto s = json_of(json.out);
  CHECK(s.fields().at("kind").string_value() == "partition");
  CHECK(s.fields().at("schema_version").number_value() == 1);
}

TEST_CASE("the input is --input, -i or a positional file for every command") {
  for (const std::vector<std::string>& args : {
           std::vector<std::string>{"inspect", "-i", kTiny},
           std::vector<std::string>{"convert", "-i", kTiny, "-o", "-"},
           std::vector<std::string>{kTiny},
           std::vector<std::string>{"explain", kTiny, "--node", "mm"},
           std::vector<std::string>{"dot", kTiny},
           std::vector<std::string>{"diff", kTiny},
           std::vector<std::string>{"flow", kTiny, "--dimacs", "-"},
           std::vector<std::string>{"sweep", kTiny, "--key", "cse", "--values", "true"},
       }) {
    CAPTURE(args.front());
    CHECK(run_tool(args).exit_code == 0);
  }
  const ToolResult two = run_tool({"explain", kTiny, "-i", kTiny, "--node", "mm"});
  CHECK(two.exit_code == 2);
  CHECK(contains(error_line(two), "this command reads one graph; 2 given"));
}

TEST_CASE("dot's drawing limit is --max-drawn; --max-nodes is the loader's") {
  const ToolResult drawn = run_tool({"dot", kLinear, "--max-drawn", "10"});
  CHECK(drawn.exit_code == 2);
  CHECK(contains(error_line(drawn), "more than --max-drawn 10"));
  const ToolResult loader = run_tool({"dot", kLinear, "--max-nodes", "10"});
  CHECK(loader.exit_code == 2);
  CHECK_FALSE(contains(loader.err, "--max-drawn"));
}

TEST_CASE("-q silences the summary line") {
  TempDir work;
  const ToolResult quiet = run_tool({"-q", "--input", kTiny, "--output", work.file("p.pb")});
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.empty());
  CHECK(quiet.err.empty());
  const ToolResult generate = run_tool({"generate", "-q", "--layers", "1", "-o", work.file("g.pb")});
  CHECK(generate.exit_code == 0);
  CHECK(generate.out.empty());
  const ToolResult loud = run_tool({"--input", kTiny});
  CHECK(contains(loud.out, "tiny_mlp: saved "));
}

TEST_CASE("CLI11's errors are one line with the tool's prefix; a bare call prints the usage") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--bogus"}, std::vector<std::string>{"inspect", kTiny, "--top", "x"},
        std::vector<std::string>{"sweep", kTiny}, std::vector<std::string>{"--report"}}) {
    CAPTURE(args.front());
    const ToolResult r = run_tool(args);
    CHECK(r.exit_code == 2);
    CHECK(error_line(r).starts_with("partition_tool: error: "));
  }
  const ToolResult bare = run_tool({});
  CHECK(bare.exit_code == 0);
  CHECK(contains(bare.out, "Usage:"));
  CHECK(contains(bare.out, "--input"));
  CHECK(bare.err.empty());
}

TEST_CASE("several graphs in one call: one exit code, per-graph sections and totals") {
  TempDir work;
  fs::create_directories(work.file("graphs"));
  fs::copy_file(kTiny, work.file("graphs/a.pbtxt"));
  fs::copy_file(kLinear, work.file("graphs/b.pb"));
  std::ofstream(work.file("graphs/notes.txt")) << "not a graph";
  const ToolResult r = run_tool({"--input", "graphs", "--report-json", "r.json", "--report-md", "r.md",
                                 "--no-timings"},
                                work.path().string());
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "tiny_mlp: saved "));
  CHECK(contains(r.out, "linear_ce: saved "));
  const auto s = json_of(read_all(work.file("r.json")));
  CHECK(s.fields().at("schema_version").number_value() == 1);
  const auto& graphs = s.fields().at("graphs").list_value();
  REQUIRE(graphs.values_size() == 2);
  CHECK(graphs.values(0).struct_value().fields().at("graph").string_value() == "tiny_mlp");
  CHECK(graphs.values(0).struct_value().fields().at("source").string_value() == "graphs/a.pbtxt");
  CHECK(graphs.values(0).struct_value().fields().at("timings").struct_value().fields().empty());
  const auto& totals = s.fields().at("totals").struct_value().fields();
  CHECK(totals.at("graphs").number_value() == 2);
  CHECK(totals.at("saved_count").number_value() ==
        graphs.values(0).struct_value().fields().at("saved_values").list_value().values_size() +
            graphs.values(1).struct_value().fields().at("saved_values").list_value().values_size());
  CHECK(contains(read_all(work.file("r.md")), "## Totals over 2 graphs"));

  // Repeated --input gives the same report; one bad graph fails the run.
  REQUIRE(run_tool({"-i", "graphs/a.pbtxt", "-i", "graphs/b.pb", "--report-json", "again.json", "--no-timings"},
                   work.path().string())
              .exit_code == 0);
  CHECK(read_all(work.file("again.json")) == read_all(work.file("r.json")));
  // diff reads such reports graph by graph.
  const ToolResult saved = run_tool({"diff", "--report-a", "r.json", "--report-b", "again.json", "--json"},
                                    work.path().string());
  CHECK(saved.exit_code == 0);
  CHECK(json_of(saved.out).fields().at("graphs").list_value().values_size() == 2);
  std::ofstream(work.file("graphs/c.json")) << "{";
  const ToolResult bad = run_tool({"--input", "graphs", "--report-json", "bad.json"}, work.path().string());
  CHECK(bad.exit_code == 2);
  CHECK(contains(error_line(bad), "c.json"));
  CHECK_FALSE(fs::exists(work.file("bad.json")));
  const ToolResult one_output = run_tool({"-i", kTiny, "-i", kLinear, "--output", "p.pb"}, work.path().string());
  CHECK(one_output.exit_code == 2);
  CHECK(contains(error_line(one_output), "--output writes one partition"));
}

TEST_CASE("--no-timings: two runs' JSON reports compare byte for byte") {
  TempDir work;
  fs::copy_file(kTiny, work.file("g.pbtxt"));
  REQUIRE(run_tool({"-i", "g.pbtxt", "--report-json", "a.json", "--no-timings"}, work.path().string()).exit_code ==
          0);
  REQUIRE(run_tool({"-i", work.file("g.pbtxt"), "--report-json", "b.json", "--no-timings"}, work.path().string())
              .exit_code == 0);
  CHECK(read_all(work.file("a.json")) == read_all(work.file("b.json")));
  CHECK(contains(read_all(work.file("a.json")), "\"source\": \"g.pbtxt\""));
  REQUIRE(run_tool({"-i", "g.pbtxt", "--report-json", "c.json"}, work.path().string()).exit_code == 0);
  CHECK_FALSE(json_of(read_all(work.file("c.json"))).fields().at("timings").struct_value().fields().empty());
}

TEST_CASE("diff over several graphs: one exit code, --report-md, the peak delta in --json") {
  TempDir work;
  const ToolResult same = run_tool({"diff", "-i", kTiny, "-i", kLinear, "--json"});
  CHECK(same.exit_code == 0);
  const auto s = json_of(same.out);
  CHECK(s.fields().at("schema_version").number_value() == 1);
  CHECK(s.fields().at("identical").bool_value());
  CHECK(s.fields().at("graphs").list_value().values_size() == 2);

  const ToolResult differ = run_tool({"diff", "-i", kTiny, "-i", kLinear, "--set-b", "activation_memory_budget=0.5",
                                      "--report-md", work.file("d.md")});
  CHECK(differ.exit_code == 1);
  const std::string md = read_all(work.file("d.md"));
  CHECK(contains(md, "## partition_tool diff: `tiny_mlp`"));
  CHECK(contains(md, "## partition_tool diff: `linear_ce`"));
  CHECK(contains(md, "| | A | B | B - A |"));
  CHECK(contains(md, "graphs' cuts differ"));
  CHECK(contains(differ.out, "graphs' cuts differ"));

  const ToolResult one = run_tool({"diff", "-i", kLinear, "--set-b", "activation_memory_budget=0.5", "--json"});
  CHECK(one.exit_code == 1);
  const auto one_json = json_of(one.out);
  const auto& delta = one_json.fields().at("delta").struct_value().fields();
  REQUIRE(delta.contains("peak_bytes"));
  CHECK(delta.at("peak_bytes").kind_case() == google::protobuf::Value::kNumberValue);
  const ToolResult md_stdout = run_tool({"diff", "-i", kLinear, "--report-md", "-"});
  CHECK(md_stdout.exit_code == 0);
  CHECK(md_stdout.out.starts_with("## partition_tool diff: `linear_ce`"));
}

TEST_CASE("sweep --json writes the swept values as numbers and booleans") {
  const ToolResult numbers = run_tool({"sweep", kTiny, "--key", "dist_from_bw_base", "--values", "1.1,1.2", "--json"});
  CHECK(numbers.exit_code == 0);
  const auto s = json_of(numbers.out);
  CHECK(s.fields().at("schema_version").number_value() == 1);
  const auto& rows = s.fields().at("rows").list_value();
  REQUIRE(rows.values_size() == 2);
  CHECK(rows.values(0).struct_value().fields().at("value").number_value() == pt::test::relative(1.1));
  const ToolResult flags = run_tool({"sweep", kTiny, "--key", "cse", "--values", "true,false", "--json"});
  const auto f = json_of(flags.out);
  CHECK(f.fields().at("rows").list_value().values(1).struct_value().fields().at("value").kind_case() ==
        google::protobuf::Value::kBoolValue);
}
