// Safe outputs: every regular file the tool writes goes through a temporary
// file renamed into place; no output may name the input or another output of the
// same run; and a run that fails writes nothing (not even the outputs that
// were fine), leaves files it would have replaced untouched and leaves no
// temporary file behind.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "cli/tool_runner.h"

namespace {

namespace fs = std::filesystem;
using pt::test::read_all;
using pt::test::contains;
using pt::test::run_tool;
using pt::test::error_line;
using pt::test::TempDir;
using pt::test::ToolResult;

const std::string kSample = std::string(PT_SAMPLE_DIR) + "/linear_ce.pb";
const std::string kInfeasible = std::string(PT_TEST_DIR) + "/robustness/unsaveable_primal.pbtxt";

size_t file_count(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file() || e.is_symlink();
  return n;
}

// A copy of the sample graph in `work`, the input of the run.
std::string copy_sample(const TempDir& work) {
  const std::string in = work.file("in.pb");
  fs::copy_file(kSample, in);
  return in;
}

}  // namespace

TEST_CASE("--report-json may not name the input file, however spelled") {
  TempDir work;
  const std::string in = copy_sample(work);
  const std::string before = read_all(in);
  for (const std::string& spelling : {in, work.file("./in.pb"), work.file("sub/../in.pb")}) {
    CAPTURE(spelling);
    fs::create_directories(work.file("sub"));
    const ToolResult r = run_tool({"--input", in, "--report-json", spelling});
    CHECK(r.exit_code == 2);
    CHECK(contains(error_line(r), "refusing to write over the input file"));
    CHECK(contains(error_line(r), "--report-json"));
    CHECK(read_all(in) == before);
  }
}

TEST_CASE("--output may not name the input through a symbolic link") {
  TempDir work;
  const std::string in = copy_sample(work);
  fs::create_symlink(in, work.file("link.pb"));
  const ToolResult r = run_tool({"--input", in, "--output", work.file("link.pb")});
  CHECK(r.exit_code == 2);
  CHECK(contains(error_line(r), "refusing to write over the input file"));
  CHECK(fs::is_symlink(work.file("link.pb")));
  CHECK(read_all(in) == read_all(kSample));
}

TEST_CASE("convert may not write over its input through a symbolic link") {
  TempDir work;
  const std::string in = copy_sample(work);
  fs::create_symlink(in, work.file("link.pb"));
  const ToolResult r = run_tool({"convert", in, work.file("link.pb")});
  CHECK(r.exit_code == 2);
  CHECK(contains(error_line(r), "refusing to write over the input file"));
  CHECK(read_all(in) == read_all(kSample));
}

TEST_CASE("flow --dimacs may not write over its input") {
  TempDir work;
  const std::string in = copy_sample(work);
  const ToolResult r = run_tool({"flow", "--input", in, "--dimacs", work.file("./in.pb")});
  CHECK(r.exit_code == 2);
  CHECK(contains(error_line(r), "refusing to write over the input file"));
  CHECK(read_all(in) == read_all(kSample));
}

TEST_CASE("--output and --report-json may not name the same file") {
  TempDir work;
  const ToolResult r = run_tool({"--input", kSample, "--output", "same.json", "--report-json", "./same.json"},
                                work.path().string());
  CHECK(r.exit_code == 2);
  CHECK(contains(error_line(r), "named by both --output and --report-json"));
  CHECK(fs::is_empty(work.path()));
}

TEST_CASE("when one output cannot be written, none is") {
  TempDir work;
  // The partition is fine; the report's directory does not exist.
  const ToolResult r = run_tool({"--input", kSample, "--output", "p.pb", "--report-json", "missing/r.json"},
                                work.path().string());
  CHECK(r.exit_code == 2);
  CHECK(contains(error_line(r), "missing/r.json: the directory missing does not exist"));
  CHECK(fs::is_empty(work.path()));
}

TEST_CASE("a failed run leaves files it would replace untouched and no temporary behind") {
  TempDir work;
  std::ofstream(work.file("p.pb")) << "old partition";
  std::ofstream(work.file("r.json")) << "old report";
  const auto check_untouched = [&] {
    CHECK(read_all(work.file("p.pb")) == "old partition");
    CHECK(read_all(work.file("r.json")) == "old report");
    CHECK(file_count(work.path()) == 2);
  };
  SUBCASE("infeasible") {
    const ToolResult r = run_tool({"--input", kInfeasible, "--output", "p.pb", "--report-json", "r.json"},
                                  work.path().string());
    CHECK(r.exit_code == 3);
    check_untouched();
  }
  SUBCASE("bad setting") {
    const ToolResult r = run_tool({"--input", kSample, "--output", "p.pb", "--report-json", "r.json", "--set",
                                   "activation_memory_budget=2"},
                                  work.path().string());
    CHECK(r.exit_code == 2);
    check_untouched();
  }
  SUBCASE("invalid input") {
    const ToolResult r = run_tool({"--input", std::string(PT_TEST_DIR) + "/malformed/negative_dim.json", "--output",
                                   "p.pb", "--report-json", "r.json"},
                                  work.path().string());
    CHECK(r.exit_code == 2);
    check_untouched();
  }
  SUBCASE("convert of an invalid input") {
    const ToolResult r = run_tool({"convert", std::string(PT_TEST_DIR) + "/malformed/negative_dim.json", "p.pb"},
                                  work.path().string());
    CHECK(r.exit_code == 2);
    check_untouched();
  }
}

TEST_CASE("a successful run replaces existing outputs and leaves only them") {
  TempDir work;
  std::ofstream(work.file("p.pb")) << "old partition";
  const ToolResult r = run_tool({"--input", kSample, "--output", "p.pb", "--report-json", "r.json"},
                                work.path().string());
  CHECK(r.exit_code == 0);
  CHECK(read_all(work.file("p.pb")) != "old partition");
  CHECK(contains(read_all(work.file("r.json")), "\"saved_values\""));
  CHECK(file_count(work.path()) == 2);
}
