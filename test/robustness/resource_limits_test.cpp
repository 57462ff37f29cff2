// Resource limits: --max-nodes on every command that loads a graph, files
// of 2 GiB and more (beyond what protobuf can parse) refused before they are
// read, and a 100 MB string in a graph rejected with one short line.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "cli/tool_runner.h"

namespace {

using pt::test::run_tool;
using pt::test::TempDir;
using pt::test::ToolResult;

const std::string kSample = std::string(PT_SAMPLE_DIR) + "/linear_ce.pb";  // 63 nodes

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string single_error(const ToolResult& r) {
  const auto lines = r.err_lines();
  REQUIRE(lines.size() == 1);
  return lines[0];
}

}  // namespace

TEST_CASE("--max-nodes rejects larger graphs in every command that loads one") {
  TempDir work;
  const std::vector<std::vector<std::string>> commands = {
      {"--input", kSample, "--output", "p.pb", "--max-nodes", "10"},
      {"convert", kSample, "g.json", "--max-nodes", "10"},
      {"inspect", kSample, "--max-nodes", "10"},
      {"flow", "--input", kSample, "--dimacs", "f.dimacs", "--max-nodes", "10"},
      {"dot", "--input", kSample, "--max-nodes", "10"},
  };
  for (const auto& args : commands) {
    CAPTURE(args[0]);
    const ToolResult r = run_tool(args, work.path().string());
    CHECK(r.exit_code == 2);
    CHECK(contains(single_error(r), "linear_ce.pb: nodes has 63 entries, above --max-nodes = 10"));
    CHECK(r.out.empty());
    CHECK(std::filesystem::is_empty(work.path()));
  }
  // At the limit the graph is accepted.
  CHECK(run_tool({"inspect", kSample, "--max-nodes", "63"}).exit_code == 0);
  CHECK(run_tool({"inspect", kSample, "--max-nodes", "0"}).exit_code == 2);
}

TEST_CASE("a file of 2 GiB or more is refused with one line, without reading it") {
  TempDir work;
  for (const std::string name : {"huge.pb", "huge.pbtxt", "huge.json"}) {
    CAPTURE(name);
    const std::string path = work.file(name);
    std::ofstream(path).close();
    std::filesystem::resize_file(path, (uintmax_t{1} << 31) + 10);  // sparse: no disk space used
    const ToolResult r = run_tool({"--input", path, "--output", work.file("p.pb")});
    CHECK(r.exit_code == 2);
    CHECK(contains(single_error(r), name + ": file is 2147483658 bytes, above the 2147483647-byte limit"));
    CHECK(!std::filesystem::exists(work.file("p.pb")));
    std::filesystem::remove(path);
  }
}

// A stream without end is refused at its first bytes, not read forever:
// text and JSON hold no NUL byte, and a binary graph's first byte is a
// field tag, never 0.
TEST_CASE("/dev/zero as input is refused at once in every format") {
  TempDir work;
  for (const std::string format : {"pb", "pbtxt", "json"}) {
    CAPTURE(format);
    const ToolResult r =
        run_tool({"--input", "/dev/zero", "--input-format", format, "--output", work.file("p.pb")});
    CHECK(r.exit_code == 2);
    CHECK(contains(single_error(r), "/dev/zero: "));
    CHECK(!std::filesystem::exists(work.file("p.pb")));
  }
}

TEST_CASE("a 100 MB string in a graph is rejected with one short line") {
  TempDir work;
  const std::string path = work.file("big_string.json");
  {
    std::ofstream out(path);
    out << R"({"nodes": [{"name": "x", "op": ")" << std::string(100u << 20, 'a')
        << R"(", "target": "x"}, {"name": "output", "op": "output", "args": []}]})";
  }
  const ToolResult r = run_tool({"--input", path, "--output", work.file("p.pb")});
  CHECK(r.exit_code == 2);
  const std::string line = single_error(r);
  CHECK(contains(line, "big_string.json: node 'x': op = 'aaaa"));
  CHECK(contains(line, "... (104857600 bytes)' is not one of placeholder"));
  CHECK(line.size() < 500);
  CHECK(!std::filesystem::exists(work.file("p.pb")));
}
