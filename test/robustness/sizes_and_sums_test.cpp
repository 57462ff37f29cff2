// No byte total or FLOP count wraps (graph/value_bytes_limit.h): a graph
// whose values pass 2^52 bytes together is refused with one line naming the
// node, exit 2 and no output file; below the limit, memory totals are exact
// and traffic and FLOP totals past 2^64 are printed as what they are, in the
// text and the JSON report.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/tool_runner.h"

namespace {

std::string tensor_node(const std::string& name, const std::string& op, const std::string& target,
                        const std::string& args, const std::string& shape, const std::string& dtype,
                        const std::string& tag) {
  return "nodes { name: \"" + name + "\" op: \"" + op + "\" target: \"" + target + "\"" + args +
         " val { tensor { shape: [" + shape + "] dtype: \"" + dtype + "\" device: \"cuda:0\" } } partitioner_tag: \"" +
         tag + "\" }\n";
}

std::string node_arg(const std::string& name) { return " args { node: \"" + name + "\" }"; }

// x (float32, `elements`), eight cumsums c0..c7 in a chain (not in the
// recompute allowlist: each is saved), their backward b7..b0 reading each
// c_i: eight saved values of 4 * elements bytes.
std::string eight_saved(uint64_t elements) {
  const std::string n = std::to_string(elements);
  std::string g = "name: \"eight_saved\"\nnum_fwd_outputs: 1\n";
  g += tensor_node("primals_1", "placeholder", "primals_1", "", n, "float32", "is_forward");
  g += tensor_node("tangents_1", "placeholder", "tangents_1", "", "", "float32", "is_backward");
  for (int i = 0; i < 8; ++i) {
    g += tensor_node("c" + std::to_string(i), "call_function", "aten.cumsum.default",
                     node_arg(i == 0 ? "primals_1" : "c" + std::to_string(i - 1)) + " args { int: 0 }", n, "float32",
                     "is_forward");
  }
  g += tensor_node("sum_1", "call_function", "aten.sum.default", node_arg("c7"), "", "float32", "is_forward");
  std::string prev = "tangents_1";
  for (int i = 7; i >= 0; --i) {
    const std::string b = "b" + std::to_string(i);
    g += tensor_node(b, "call_function", "aten.mul.Tensor", node_arg("c" + std::to_string(i)) + node_arg(prev), n,
                     "float32", "is_backward");
    prev = b;
  }
  g += "nodes { name: \"output\" op: \"output\" target: \"output\" args { list { items { node: \"sum_1\" } items { node: \"" +
       prev + "\" } } } }\n";
  return g;
}

// An mm of [2^21, 2^21] @ [2^21, 2^21] in bfloat16: 2 * 2^63 = 2^64 FLOPs
// (8 TiB a tensor), and its backward mm as much.
std::string mm_of_2_64_flops() {
  const std::string m = std::to_string(uint64_t{1} << 21);
  const std::string s = m + ", " + m;
  std::string g = "name: \"mm_2_64\"\nnum_fwd_outputs: 1\n";
  g += tensor_node("primals_1", "placeholder", "primals_1", "", s, "bfloat16", "is_forward");
  g += tensor_node("primals_2", "placeholder", "primals_2", "", s, "bfloat16", "is_forward");
  g += tensor_node("tangents_1", "placeholder", "tangents_1", "", "", "bfloat16", "is_backward");
  g += tensor_node("mm", "call_function", "aten.mm.default", node_arg("primals_1") + node_arg("primals_2"), s,
                   "bfloat16", "is_forward");
  g += tensor_node("sum_1", "call_function", "aten.sum.default", node_arg("mm"), "", "bfloat16", "is_forward");
  g += tensor_node("expand", "call_function", "aten.expand.default", node_arg("tangents_1"), s, "bfloat16",
                   "is_backward");
  g += tensor_node("t", "call_function", "aten.t.default", node_arg("primals_2"), s, "bfloat16", "is_backward");
  g += tensor_node("mm_1", "call_function", "aten.mm.default", node_arg("expand") + node_arg("t"), s, "bfloat16",
                   "is_backward");
  g += "nodes { name: \"output\" op: \"output\" target: \"output\" args { list { items { node: \"sum_1\" } items { "
       "node: \"mm_1\" } items { none: true } } } }\n";
  return g;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// The number after the `n`th `"key": ` (0: the first). In a report the
// bandwidth model's passes are the only objects with bytes_loaded and
// flops, the forward first.
double json_number(const std::string& json, const std::string& key, int n = 0) {
  size_t at = 0;
  for (int i = 0; i <= n; ++i) {
    at = json.find("\"" + key + "\": ", i == 0 ? 0 : at + 1);
    REQUIRE(at != std::string::npos);
  }
  return std::strtod(json.c_str() + at + key.size() + 4, nullptr);
}

}  // namespace

TEST_CASE("eight saved values of 2^62 bytes: refused with one line naming the node, no output") {
  pt::test::TempDir work;
  write(work.file("g.pbtxt"), eight_saved(uint64_t{1} << 60));  // float32: 2^62 bytes each
  const auto r = pt::test::run_tool({"--input", "g.pbtxt", "--output", "out.pb", "--report-json", "r.json"},
                                    work.path().string());
  CHECK(r.exit_code == 2);
  const std::string line = pt::test::error_line(r);
  CHECK(line == "partition_tool: error: g.pbtxt: node 'primals_1': val holds 4.61 EB, which brings the graph's "
                "values to more than 2^52 bytes (4.50 PB), the most the tool sums exactly");
  CHECK(r.out.empty());
  CHECK(!std::filesystem::exists(work.path() / "out.pb"));
  CHECK(!std::filesystem::exists(work.path() / "r.json"));
}

TEST_CASE("values each within limits but over 2^52 together: the node where the total passes is named") {
  pt::test::TempDir work;
  write(work.file("g.pbtxt"), eight_saved(uint64_t{1} << 46));  // 17 values of 2^48 bytes, and two scalars
  const auto r = pt::test::run_tool({"--input", "g.pbtxt", "--report"}, work.path().string());
  CHECK(r.exit_code == 2);
  const std::string line = pt::test::error_line(r);
  // Graph order: primals_1, tangents_1, c0..c7, sum_1, b7..b0: the
  // sixteenth large value, b1, brings the total to 2^52 and the two
  // scalars' 8 bytes.
  CHECK(line.find("g.pbtxt: node 'b1': val holds 281 TB, which brings the graph's values to more than 2^52 bytes") !=
        std::string::npos);
}

TEST_CASE("below the limit, memory totals are exact in the text and the JSON report") {
  pt::test::TempDir work;
  write(work.file("g.pbtxt"), eight_saved(uint64_t{1} << 45));  // 2^47 bytes each: 17 of them < 2^52
  const auto r = pt::test::run_tool({"--input", "g.pbtxt", "--report", "--report-json", "r.json"},
                                    work.path().string());
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string json = pt::test::read_all(work.file("r.json"));
  CHECK(json.find("\"saved_bytes\": 1125899906842624,") != std::string::npos);  // 8 * 2^47
  CHECK(pt::test::contains(r.out, "1.13 PB"));
  CHECK(!pt::test::contains(r.out, " 0 B"));
}

TEST_CASE("an mm of 2^64 FLOPs: 18.4 EFLOP in the text report, 2^64 in the JSON report, in every format") {
  pt::test::TempDir work;
  write(work.file("mm.pbtxt"), mm_of_2_64_flops());
  const auto r = pt::test::run_tool(
      {"--input", "mm.pbtxt", "--report", "--report-json", "r.json", "--report-md", "r.md", "--report-html", "r.html"},
      work.path().string());
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(pt::test::contains(r.out, "18.4 EFLOP"));
  CHECK(!pt::test::contains(r.out, " 0 FLOP"));
  const std::string json = pt::test::read_all(work.file("r.json"));
  CHECK(json_number(json, "flops", 0) == std::ldexp(1.0, 64));
  CHECK(json_number(json, "flops", 1) == std::ldexp(1.0, 64));
  CHECK(pt::test::contains(pt::test::read_all(work.file("r.md")), "18.4 EFLOP"));
  CHECK(pt::test::contains(pt::test::read_all(work.file("r.html")), "18.4 EFLOP"));
}

TEST_CASE("traffic and FLOP totals past 2^64 are printed as they are, not wrapped") {
  // One 2^51-byte matrix read by 16,384 mm kernels: 2^65 bytes loaded and
  // 2^65 FLOPs, though the graph's values hold 2^51 bytes and a little more.
  const std::string n = std::to_string(uint64_t{1} << 25);
  std::string g = "name: \"wide_reads\"\nnum_fwd_outputs: 16384\n";
  g += tensor_node("primals_1", "placeholder", "primals_1", "", n + ", " + n, "bfloat16", "is_forward");
  g += tensor_node("primals_2", "placeholder", "primals_2", "", n + ", 1", "bfloat16", "is_forward");
  std::string outputs;
  for (int i = 0; i < 16384; ++i) {
    const std::string mm = "mm" + std::to_string(i);
    g += tensor_node(mm, "call_function", "aten.mm.default", node_arg("primals_1") + node_arg("primals_2"), n + ", 1",
                     "bfloat16", "is_forward");
    outputs += " items { node: \"" + mm + "\" }";
  }
  g += "nodes { name: \"output\" op: \"output\" target: \"output\" args { list {" + outputs +
       " items { none: true } items { none: true } } } }\n";
  pt::test::TempDir work;
  write(work.file("g.pbtxt"), g);
  const auto r = pt::test::run_tool({"--input", "g.pbtxt", "--report", "--report-json", "r.json"},
                                    work.path().string());
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string json = pt::test::read_all(work.file("r.json"));
  CHECK(json_number(json, "bytes_loaded", 0) >= std::ldexp(1.0, 65));
  CHECK(json_number(json, "flops", 0) == std::ldexp(1.0, 65));
  CHECK(pt::test::contains(r.out, "36.9 EB moved (36.9 EB loaded"));
  CHECK(pt::test::contains(r.out, "36.9 EFLOP"));
}

TEST_CASE("diff refuses a saved report whose byte counts are past the graph limit or not counts") {
  pt::test::TempDir work;
  const auto made = pt::test::run_tool(
      {"--input", std::string(PT_SAMPLE_DIR) + "/tiny_mlp.pbtxt", "--report-json", "a.json"}, work.path().string());
  REQUIRE(made.exit_code == 0);
  const std::string a = pt::test::read_all(work.file("a.json"));
  const size_t at = a.find("\"saved_bytes\": ");
  REQUIRE(at != std::string::npos);
  const size_t end = a.find(',', at);
  for (const std::string bad : {"1e30", "-1", "4503599627370497", "1.5"}) {
    CAPTURE(bad);
    write(work.file("b.json"), a.substr(0, at) + "\"saved_bytes\": " + bad + a.substr(end));
    const auto r = pt::test::run_tool({"diff", "--report-a", "a.json", "--report-b", "b.json"}, work.path().string());
    CHECK(r.exit_code == 2);
    CHECK(pt::test::error_line(r) ==
          "partition_tool: error: b.json: report field 'saved_bytes' is not a whole number of bytes up to 2^52 "
          "(expected a report written by partition_tool --report-json)");
  }
}
