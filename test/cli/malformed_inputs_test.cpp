// For every file in test/malformed/, both `partition_tool convert BAD out.pb`
// and `partition_tool --input BAD --output out.pb` exit with 2, print exactly
// one line on stderr that names the file and contains the expected substring
// (an empty file: "the file is empty"),
// print nothing on stdout, and leave no file behind.
#include <doctest/doctest.h>

#include <filesystem>

#include "cli/tool_runner.h"
#include "malformed/expected_errors.h"

namespace {

void check_rejected(const std::vector<std::string>& args, const pt::test::ExpectedError& e,
                    const pt::test::TempDir& work) {
  const pt::test::ToolResult r = pt::test::run_tool(args, work.path().string());
  CAPTURE(r.err);
  CHECK(r.exit_code == 2);
  const auto lines = r.err_lines();
  REQUIRE(lines.size() == 1);
  CHECK(r.err.back() == '\n');
  CHECK(lines[0].starts_with("partition_tool: error: "));
  CHECK(lines[0].find(e.file) != std::string::npos);
  // The tool names an empty file as such before any parser sees it (the
  // listed substring is the library's, which reads the bytes it is given).
  const bool empty = std::filesystem::file_size(pt::test::malformed_dir() + "/" + e.file) == 0;
  CHECK(lines[0].find(empty ? std::string("the file is empty") : e.substring) != std::string::npos);
  CHECK(r.out.empty());
  // Nothing written: neither out.pb nor a temporary file.
  CHECK(std::filesystem::is_empty(work.path()));
}

}  // namespace

TEST_CASE("convert rejects each malformed file with one line and exit 2") {
  for (const auto& e : pt::test::read_expected_errors()) {
    CAPTURE(e.file);
    pt::test::TempDir work;
    check_rejected({"convert", pt::test::malformed_dir() + "/" + e.file, "out.pb"}, e, work);
  }
}

TEST_CASE("the main command rejects each malformed file with one line and exit 2") {
  for (const auto& e : pt::test::read_expected_errors()) {
    CAPTURE(e.file);
    pt::test::TempDir work;
    check_rejected({"--input", pt::test::malformed_dir() + "/" + e.file, "--output", "out.pb"}, e, work);
  }
}
