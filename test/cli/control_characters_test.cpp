// No control character from the command line (a path, a setting value)
// reaches the terminal or a report unescaped: ESC (0x1b) and CSI as a C1
// control (U+009B, bytes c2 9b) show as \x1b and \u009b in the one-line
// error, in the text and Markdown reports and the page, and as \u001b and
// \u009b in JSON strings.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "cli/tool_runner.h"

namespace {

const std::string kEsc = "\x1b[31m";
const std::string kCsi = "\xc2\x9b" "2J";

bool has_raw_control(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b < 0x20 && b != '\n') || b == 0x7f) return true;
    if (b == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xa0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a path with ESC and a C1 CSI: escaped in the one-line error") {
  pt::test::TempDir work;
  const auto r = pt::test::run_tool({"--input", "no" + kEsc + "such" + kCsi + ".pb"}, work.path().string());
  CHECK(r.exit_code == 2);
  const std::string line = pt::test::error_line(r);
  CHECK(!has_raw_control(r.err));
  CHECK(pt::test::contains(line, "no\\x1b[31msuch\\u009b2J.pb"));
}

TEST_CASE("a --set value with ESC and a C1 CSI: escaped in the one-line error") {
  for (const std::string& key : {"dist_from_bw_base", "recomputable_ops.add", "activation_memory_budget_solver"}) {
    CAPTURE(key);
    const auto r = pt::test::run_tool(
        {"--input", std::string(PT_SAMPLE_DIR) + "/tiny_mlp.pbtxt", "--set", key + "=x" + kEsc + kCsi});
    CHECK(r.exit_code == 2);
    const std::string line = pt::test::error_line(r);
    CHECK(!has_raw_control(r.err));
    CHECK(pt::test::contains(line, "x\\x1b[31m\\u009b2J"));
  }
}

TEST_CASE("a graph path with ESC and a C1 CSI: escaped in every report") {
  pt::test::TempDir work;
  const std::string name = "g" + kEsc + kCsi + ".pbtxt";
  std::filesystem::copy_file(std::string(PT_SAMPLE_DIR) + "/tiny_mlp.pbtxt", work.path() / name);
  const auto r = pt::test::run_tool({"--input", name, "--report", "--report-json", "r.json", "--report-md", "r.md",
                                     "--report-html", "r.html", "--plot-memory", "m.svg"},
                                    work.path().string());
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(!has_raw_control(r.out));
  CHECK(pt::test::contains(r.out, "g\\x1b[31m\\u009b2J.pbtxt"));
  const std::string json = pt::test::read_all(work.file("r.json"));
  CHECK(!has_raw_control(json));
  CHECK(pt::test::contains(json, "\"source\": \"g\\u001b[31m\\u009b2J.pbtxt\""));
  for (const char* file : {"r.md", "r.html", "m.svg"}) {
    CAPTURE(file);
    CHECK(!has_raw_control(pt::test::read_all(work.file(file))));
  }
  CHECK(pt::test::contains(pt::test::read_all(work.file("r.md")), "g\\x1b[31m\\u009b2J.pbtxt"));
}

TEST_CASE("the summary line names an output path with controls escaped") {
  pt::test::TempDir work;
  const auto r = pt::test::run_tool(
      {"--input", std::string(PT_SAMPLE_DIR) + "/tiny_mlp.pbtxt", "--output", "p" + kEsc + kCsi + ".pb"},
      work.path().string());
  REQUIRE(r.exit_code == 0);
  CHECK(!has_raw_control(r.out));
  CHECK(pt::test::contains(r.out, "partition written to p\\x1b[31m\\u009b2J.pb"));
}
