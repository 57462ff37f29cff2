// The command line as a user meets it: --help and --version, inspect on the
// samples (text and JSON), convert round trips and its refusal to overwrite
// its input, the main command's settings (--set, --config) and its
// outputs, logging flags, exit codes.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include "cli/tool_runner.h"
#include "graph/graph_io.h"

namespace {

using pt::test::contains;
using pt::test::run_tool;
using pt::test::error_line;
using pt::test::TempDir;
using pt::test::ToolResult;

const std::string kLinear = std::string(PT_SAMPLE_DIR) + "/linear_ce.pb";
const std::string kTiny = std::string(PT_SAMPLE_DIR) + "/tiny_mlp.pbtxt";

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("--version prints the version on stdout") {
  const ToolResult r = run_tool({"--version"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "partition_tool 0.1.0\n");
  CHECK(r.err.empty());
}

TEST_CASE("--help teaches every command: description, options, an example") {
  const ToolResult main_help = run_tool({"--help"});
  CHECK(main_help.exit_code == 0);
  for (const char* part : {"Partition a joint forward+backward training graph", "--input", "--output", "--report",
                           "--report-json", "--set KEY=VALUE", "--config FILE", "-v,--verbose", "-q,--quiet",
                           "inspect", "convert", "dist_from_bw_base", "activation_memory_budget_solver",
                           "recomputable_ops[.add|.remove]", "Exit codes: 0 ok; 2 bad input",
                           "Examples:", "partition_tool --input sample_graphs/linear_ce.pb --report"}) {
    CAPTURE(part);
    CHECK(contains(main_help.out, part));
  }
  const ToolResult inspect = run_tool({"inspect", "--help"});
  CHECK(inspect.exit_code == 0);
  for (const char* part : {"Summarize a joint graph", "GRAPH", "--json", "--top N", "--input-format FORMAT",
                           "Examples:", "partition_tool inspect sample_graphs/linear_ce.pb"}) {
    CAPTURE(part);
    CHECK(contains(inspect.out, part));
  }
  const ToolResult convert = run_tool({"convert", "--help"});
  CHECK(convert.exit_code == 0);
  for (const char* part : {"Convert a graph between .pb, .pbtxt and .json", "IN", "OUT", "--output-format FORMAT",
                           "must not", "Examples:", "partition_tool convert graph.json graph.pb"}) {
    CAPTURE(part);
    CHECK(contains(convert.out, part));
  }
}

TEST_CASE("command-line mistakes exit 2 with CLI11's message") {
  const ToolResult none = run_tool({"-v"});
  CHECK(none.exit_code == 2);
  CHECK(contains(none.err, "--input is required"));
  const ToolResult bogus = run_tool({"--bogus"});
  CHECK(bogus.exit_code == 2);
  CHECK(contains(bogus.err, "--bogus"));
  const ToolResult missing_arg = run_tool({"convert", kTiny});
  CHECK(missing_arg.exit_code == 2);
  CHECK(contains(missing_arg.err, "no output given: name it as OUT or with --output PATH"));
  const ToolResult negative_top = run_tool({"inspect", kTiny, "--top", "-1"});
  CHECK(negative_top.exit_code == 2);
  CHECK(contains(negative_top.err, "--top"));
}

TEST_CASE("parallelism is sweep's --jobs alone: no other command takes --threads") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--input", kTiny, "--threads", "2"}, {"inspect", kTiny, "--threads", "2"}}) {
    const ToolResult r = run_tool(args);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "--threads"));
  }
  CHECK_FALSE(contains(run_tool({"--help"}).out, "--threads"));
  CHECK(contains(run_tool({"sweep", "--help"}).out, "--jobs"));
}

TEST_CASE("inspect linear_ce.pb: counts, split, inputs, largest tensors") {
  const ToolResult r = run_tool({"inspect", kLinear});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  for (const std::string& line : std::vector<std::string>{
           "graph 'linear_ce' from " + kLinear + " (pb)\n",
           "validation: ok\n",
           "nodes: 63 (4 placeholder, 58 call_function, 0 get_attr, 1 output)\n",
           "inputs: 3 primal (1 parameter/buffer, 77.2 MB), 1 tangent, 0 forward seed, 0 backward seed\n",
           "outputs: 1 forward, 3 gradient (1 none)\n",
           "  is_forward                 30 nodes    36.5 GB\n",
           "  is_backward                25 nodes    49.8 GB\n",
           "call_function ops by target packet (10 of 24 shown; 14 more not shown, --top 0 shows all):\n",
           "        6  prims.convert_element_type\n",
           "largest tensors (10 of 62 shown; 52 more not shown, --top 0 shows all):\n",
           "    13.2 GB  expand_default  [32768, 50257] int64  -\n",
           "    6.59 GB  convert_element_type_2  [32768, 50257] float32  -\n",
       }) {
    CAPTURE(line);
    CHECK(contains(r.out, line));
  }
}

TEST_CASE("inspect --top: the lists say how many rows they leave out") {
  const ToolResult three = run_tool({"inspect", kTiny, "--top", "3"});
  CHECK(three.exit_code == 0);
  CHECK(contains(three.out, "call_function ops by target packet (3 of 8 shown; 5 more not shown"));
  CHECK(contains(three.out, "largest tensors (3 of 14 shown; 11 more not shown"));
  const ToolResult all = run_tool({"inspect", kTiny, "--top", "0"});
  CHECK(contains(all.out, "call_function ops by target packet (all 8):\n"));
  CHECK(contains(all.out, "largest tensors (all 14):\n"));
  CHECK(contains(all.out, "        4 B  sum_1  [] float32  -\n"));
}

TEST_CASE("inspect --json gives the same summary, machine-readable") {
  const ToolResult r = run_tool({"inspect", kTiny, "--json", "--top", "2"});
  CHECK(r.exit_code == 0);
  google::protobuf::Struct s;
  REQUIRE(google::protobuf::util::JsonStringToMessage(r.out, &s).ok());
  const auto& f = s.fields();
  CHECK(f.at("name").string_value() == "tiny_mlp");
  CHECK(f.at("format").string_value() == "pbtxt");
  CHECK(f.at("nodes").number_value() == 15);
  CHECK(f.at("validation").struct_value().fields().at("ok").bool_value());
  CHECK(f.at("tensor_values").number_value() == 14);
  CHECK(f.at("tensor_bytes").number_value() == 581644);
  CHECK(f.at("packets_total").number_value() == 8);
  CHECK(f.at("packets_not_shown").number_value() == 6);
  const auto& packets = f.at("by_packet").list_value();
  REQUIRE(packets.values_size() == 2);
  CHECK(packets.values(0).struct_value().fields().at("name").string_value() == "aten.mm");
  CHECK(packets.values(0).struct_value().fields().at("count").number_value() == 3);
  const auto& largest = f.at("largest_tensors").list_value();
  REQUIRE(largest.values_size() == 2);
  const auto& first = largest.values(0).struct_value().fields();
  CHECK(first.at("name").string_value() == "primals_1");
  CHECK(first.at("bytes").number_value() == 131072);
  CHECK(first.at("dtype").string_value() == "float32");
  CHECK(f.at("largest_not_shown").number_value() == 12);
  const auto& outputs = f.at("outputs").struct_value().fields();
  CHECK(outputs.at("forward").number_value() == 1);
  CHECK(outputs.at("gradients").number_value() == 2);
}

TEST_CASE("inspect: --input-format overrides the extension") {
  TempDir dir;
  std::filesystem::copy_file(kTiny, dir.file("tiny.dat"));
  const ToolResult no_format = run_tool({"inspect", dir.file("tiny.dat")});
  CHECK(no_format.exit_code == 2);
  CHECK(contains(error_line(no_format), "tiny.dat: cannot tell the format from the extension '.dat'"));
  const ToolResult with_format = run_tool({"inspect", dir.file("tiny.dat"), "--input-format", "pbtxt"});
  CHECK(with_format.exit_code == 0);
  CHECK(contains(with_format.out, "nodes: 15 (3 placeholder, 11 call_function, 0 get_attr, 1 output)"));
}

TEST_CASE("convert round-trips pbtxt -> json -> pb -> pbtxt to the same message") {
  TempDir dir;
  REQUIRE(run_tool({"convert", kTiny, dir.file("a.json")}).exit_code == 0);
  REQUIRE(run_tool({"convert", dir.file("a.json"), dir.file("b.pb")}).exit_code == 0);
  REQUIRE(run_tool({"convert", dir.file("b.pb"), dir.file("c.pbtxt")}).exit_code == 0);
  const auto original = pt::read_graph(kTiny, pt::Format::Text);
  const auto back = pt::read_graph(dir.file("c.pbtxt"), pt::Format::Text);
  CHECK(google::protobuf::util::MessageDifferencer::Equals(*original, *back));
  CHECK(contains(pt::test::read_all(dir.file("a.json")), "\"shape\": [\n"));
  // --output-format overrides the extension; '-' writes to stdout.
  const ToolResult to_stdout = run_tool({"convert", kTiny, "-"});
  CHECK(to_stdout.exit_code == 0);
  CHECK(contains(to_stdout.out, "\"name\": \"tiny_mlp\""));
  CHECK(run_tool({"convert", kTiny, dir.file("d.out"), "--output-format", "pb"}).exit_code == 0);
  CHECK(pt::test::read_all(dir.file("d.out")) == pt::test::read_all(dir.file("b.pb")));
}

TEST_CASE("convert refuses to write over its input") {
  TempDir dir;
  const std::string in = dir.file("g.pbtxt");
  std::filesystem::copy_file(kTiny, in);
  const std::string before = pt::test::read_all(in);
  for (const std::string& out : std::vector<std::string>{in, dir.path().string() + "/./g.pbtxt"}) {
    const ToolResult r = run_tool({"convert", in, out, "--output-format", "pbtxt"});
    CHECK(r.exit_code == 2);
    CHECK(contains(error_line(r), "refusing to write over the input file"));
  }
  std::filesystem::create_symlink(in, dir.file("link.pbtxt"));
  CHECK(run_tool({"convert", in, dir.file("link.pbtxt")}).exit_code == 2);
  CHECK(pt::test::read_all(in) == before);
}

TEST_CASE("convert of a missing file: one line, exit 2") {
  TempDir dir;
  const ToolResult r = run_tool({"convert", dir.file("nope.pb"), dir.file("out.json")});
  CHECK(r.exit_code == 2);
  CHECK(error_line(r) == "partition_tool: error: " + dir.file("nope.pb") + ": cannot open: No such file or directory");
  CHECK_FALSE(std::filesystem::exists(dir.file("out.json")));
}

TEST_CASE("main command: unknown --set key exits 2 with the nearest key") {
  const ToolResult r = run_tool({"--input", kTiny, "--set", "dist_from_bw_bas=1"});
  CHECK(r.exit_code == 2);
  CHECK(error_line(r) == "partition_tool: error: unknown setting 'dist_from_bw_bas' (did you mean "
                           "'dist_from_bw_base'?) (partition_tool --help lists the keys)");
}

TEST_CASE("main command: applies --set, writes --output, -q keeps stderr and stdout empty") {
  TempDir dir;
  const ToolResult r = run_tool({"--input", kTiny, "--output", dir.file("p.pb"), "--report", "--set",
                                 "dist_from_bw_base=1.2", "--set", "recompute_views=true"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(contains(r.out, "settings: dist_from_bw_base=1.2, recompute_views=true\n"));
  pt::proto::Partition partition;
  pt::read_message(dir.file("p.pb"), pt::Format::Binary, &partition);
  CHECK(partition.source() == "tiny_mlp");
  CHECK(partition.settings().at("dist_from_bw_base") == "1.2");
  CHECK(partition.settings().at("recompute_views") == "true");

  const ToolResult quiet = run_tool({"-q", "--input", kTiny});
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
  CHECK(quiet.out.empty());  // -q silences the summary line too
}

TEST_CASE("main command: --config file, then --set on top; errors name file and line") {
  TempDir dir;
  write_text(dir.file("s.toml"),
             "# partitioner settings\n"
             "dist_from_bw_base = 1.2   # inline comment\n"
             "activation_memory_budget_solver = \"greedy\"\n"
             "\n"
             "[recomputable_ops]\n"
             "add = [\"aten.mm\", \"aten.bmm\"]\n");
  const ToolResult r = run_tool({"--input", kTiny, "--config", dir.file("s.toml"), "--report"});
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "activation_memory_budget_solver=greedy"));
  CHECK(contains(r.out, "dist_from_bw_base=1.2"));
  CHECK(contains(r.out, "recomputable_ops"));
  const ToolResult over =
      run_tool({"--input", kTiny, "--config", dir.file("s.toml"), "--set", "dist_from_bw_base=1.3", "--report"});
  CHECK(contains(over.out, "dist_from_bw_base=1.3"));
  CHECK_FALSE(contains(over.out, "dist_from_bw_base=1.2"));

  write_text(dir.file("bad.toml"), "cse = true\nbogus_key = 3\n");
  const ToolResult bad = run_tool({"--input", kTiny, "--config", dir.file("bad.toml")});
  CHECK(bad.exit_code == 2);
  CHECK(contains(error_line(bad), dir.file("bad.toml") + ":2: unknown setting 'bogus_key'"));
  write_text(dir.file("noeq.toml"), "cse true\n");
  const ToolResult noeq = run_tool({"--input", kTiny, "--config", dir.file("noeq.toml")});
  CHECK(noeq.exit_code == 2);
  CHECK(contains(error_line(noeq), "noeq.toml:1: "));
  const ToolResult missing = run_tool({"--input", kTiny, "--config", dir.file("none.toml")});
  CHECK(missing.exit_code == 2);
  CHECK(contains(error_line(missing), "none.toml: cannot open settings file"));
}

TEST_CASE("main command: --output may not be the input") {
  TempDir dir;
  std::filesystem::copy_file(kTiny, dir.file("g.pbtxt"));
  const ToolResult r = run_tool({"--input", dir.file("g.pbtxt"), "--output", dir.file("g.pbtxt")});
  CHECK(r.exit_code == 2);
  CHECK(contains(error_line(r), "refusing to write over the input file"));
}

TEST_CASE("-v raises the log level, before or after the subcommand") {
  TempDir dir;
  const ToolResult after = run_tool({"convert", "-v", kTiny, dir.file("a.pb")});
  CHECK(after.exit_code == 0);
  CHECK(after.err == "partition_tool: info: wrote " + dir.file("a.pb") + " (pb, 15 nodes)\n");
  const ToolResult before = run_tool({"-v", "convert", kTiny, dir.file("b.pb")});
  CHECK(before.err == "partition_tool: info: wrote " + dir.file("b.pb") + " (pb, 15 nodes)\n");
  const ToolResult silent = run_tool({"convert", kTiny, dir.file("c.pb")});
  CHECK(silent.err.empty());
  const ToolResult quiet_wins = run_tool({"-v", "convert", "-q", kTiny, dir.file("d.pb")});
  CHECK(quiet_wins.err.empty());
}

namespace {

// Writes `text` to a cgroup control file; false where it cannot.
bool write_control(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  f.flush();
  return static_cast<bool>(f);
}

// This process's cgroup directory in the v1 pids hierarchy, or "".
std::string own_pids_cgroup() {
  std::ifstream f("/proc/self/cgroup");
  for (std::string line; std::getline(f, line);) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    if (line.substr(first + 1, second - first - 1) == "pids") return "/sys/fs/cgroup/pids" + line.substr(second + 1);
  }
  return "";
}

// Runs the tool with this process in a new v1 pids cgroup of `max` tasks
// (the test, the tool and max - 2 more threads); the thread starts the limit
// refused go to `refused`. Where no such cgroup can be made (it needs root
// in a container with the controller mounted, as this project's machines)
// it says so and returns nothing: the case is skipped.
std::optional<ToolResult> run_tool_with_pids_max(const std::vector<std::string>& args, int max, int64_t& refused) {
  const std::string home = own_pids_cgroup();
  const std::string limited = "/sys/fs/cgroup/pids/pt_commands_test_" + std::to_string(getpid());
  if (home.empty() || !std::filesystem::create_directory(limited)) {
    MESSAGE("skipped: no v1 pids cgroup to limit threads in");
    return std::nullopt;
  }
  const bool limited_ok = write_control(limited + "/pids.max", std::to_string(max)) &&
                          write_control(limited + "/cgroup.procs", std::to_string(getpid()));
  const ToolResult capped = limited_ok ? run_tool(args) : ToolResult{};
  write_control(home + "/cgroup.procs", std::to_string(getpid()));
  std::ifstream events(limited + "/pids.events");
  std::string word;
  events >> word >> refused;  // "max N": thread starts the limit refused
  std::filesystem::remove(limited);
  REQUIRE(limited_ok);
  return capped;
}

}  // namespace

TEST_CASE("with no thread to be had (a pids limit), a command runs its threads' work itself") {
  // gpt2_124m: rows of milliseconds, so the first thread is still at work
  // when the second is asked for (on tiny_mlp it could finish first, and
  // the limit then refused nothing).
  const std::vector<std::string> sweep = {"sweep", "--input", std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb",
                                          "--key", "dist_from_bw_base", "--values",
                                          "1.0,1.02,1.04,1.06,1.08,1.1,1.12,1.14,1.16,1.18,1.2", "--jobs", "3"};
  const ToolResult free_run = run_tool(sweep);
  // This process, the tool's and one thread: of --jobs 3's two threads one
  // cannot start. (Under LeakSanitizer the slot serves its exit-time tracer.)
  int64_t refused = 0;
  const auto capped = run_tool_with_pids_max(sweep, 3, refused);
  if (!capped) return;  // skipped, as the helper said
  CHECK(free_run.exit_code == 0);
  CHECK(capped->exit_code == 0);
  CHECK(capped->err.empty());
  CHECK(capped->out == free_run.out);
  CHECK(refused >= 1);
}
