// Running out of memory ends in one line naming what was being done, exit
// 2, no output file: never SIGABRT or "internal error". The tool partitions
// a generated graph with every output under a range of address-space
// limits (ulimit -v); each run either succeeds or fails that way, and some
// fail. A sanitizer build reserves terabytes of shadow memory at start-up,
// so there the case cannot run and the program exits 77 (CTest: skipped).
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli/tool_runner.h"

#include "support/under_sanitizer.h"

TEST_CASE("out of memory under ulimit -v: one line naming the stage, exit 2, no output") {
#ifdef PT_UNDER_SANITIZER
  MESSAGE("skipped: a sanitizer build cannot start under an address-space limit");
  std::exit(77);
#endif
  pt::test::TempDir dir;
  const std::string tool = PT_TOOL_PATH;
  const auto made = pt::test::run_tool(
      {"generate", "--layers", "40", "--hidden", "256", "--heads", "4", "--seq", "128", "-o", dir.file("g.pb")});
  REQUIRE(made.exit_code == 0);
  int out_of_memory = 0;
  for (const int megabytes : {16, 20, 24, 28, 32, 40, 48, 64, 96, 128}) {
    CAPTURE(megabytes);
    const std::filesystem::path work = dir.path() / std::to_string(megabytes);
    std::filesystem::create_directory(work);
    const std::string command = "cd '" + work.string() + "' && ulimit -v " + std::to_string(megabytes * 1024) +
                                " && '" + tool + "' ../g.pb -o out.pb --report-json r.json --report-md r.md " +
                                "--report-html r.html >stdout 2>stderr";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    const int code = WEXITSTATUS(status);
    const std::string err = pt::test::read_all((work / "stderr").string());
    CAPTURE(err);
    // Below what the dynamic loader needs the tool never starts: nothing to check.
    if (code == 127 && pt::test::contains(err, "error while loading shared libraries")) continue;
    if (code == 0) continue;
    CHECK(code == 2);
    pt::test::ToolResult r;
    r.err = err;
    const std::string line = pt::test::error_line(r);
    CHECK(line.starts_with("partition_tool: error: out of memory while "));
    for (const char* file : {"out.pb", "r.json", "r.md", "r.html"}) CHECK(!std::filesystem::exists(work / file));
    ++out_of_memory;
  }
  CHECK(out_of_memory > 0);
}
