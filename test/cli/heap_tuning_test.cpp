// The start-up heap tuning (app/malloc_tuning.cpp): the tool puts the first
// 64 MiB of its heap on transparent huge pages unless PT_MALLOC_TUNING=0 (or
// the caller's own malloc tunables, or a machine without transparent huge
// pages) says otherwise; -vv logs which. Results never depend on it.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "cli/tool_runner.h"

namespace {

using pt::test::run_tool;
using pt::test::ToolResult;

const std::string kLinear = std::string(PT_SAMPLE_DIR) + "/linear_ce.pb";

// The "heap tuning: ..." debug line of a run.
std::string tuning_line(const ToolResult& r) {
  for (const std::string& line : r.err_lines()) {
    if (line.find("heap tuning: ") != std::string::npos) return line;
  }
  return "";
}

bool huge_pages_usable() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(in, mode);
  return mode.find("[always]") != std::string::npos || mode.find("[madvise]") != std::string::npos;
}

// Sets an environment variable for the tool runs of one scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const std::string& n, const std::string& value) : name(n) { setenv(n.c_str(), value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("the heap tuning: on by default where huge pages exist, off with PT_MALLOC_TUNING=0, same results") {
  unsetenv("PT_MALLOC_TUNING");
  unsetenv("GLIBC_TUNABLES");
  const ToolResult plain = run_tool({"-vv", "--input", kLinear, "--report-json", "-"});
  REQUIRE(plain.exit_code == 0);
  const std::string state = tuning_line(plain);
  REQUIRE_MESSAGE(!state.empty(), plain.err);
  if (state.find("built without PT_HEAP_TUNING") != std::string::npos) {
    MESSAGE("this build has no heap tuning (sanitizer build): " << state);
    return;
  }
  if (huge_pages_usable()) {
    CHECK_MESSAGE(state.find("heap tuning: on (") != std::string::npos, state);
  } else {
    CHECK_MESSAGE(state.find("off (transparent huge pages disabled)") != std::string::npos, state);
  }

  ToolResult off;
  {
    ScopedEnv env("PT_MALLOC_TUNING", "0");
    off = run_tool({"-vv", "--input", kLinear, "--report-json", "-"});
  }
  REQUIRE(off.exit_code == 0);
  CHECK_MESSAGE(tuning_line(off).find("heap tuning: off (PT_MALLOC_TUNING=0)") != std::string::npos, off.err);

  ToolResult theirs;
  {
    ScopedEnv env("GLIBC_TUNABLES", "glibc.malloc.check=0");
    theirs = run_tool({"-vv", "--input", kLinear, "--report-json", "-"});
  }
  REQUIRE(theirs.exit_code == 0);
  CHECK_MESSAGE(tuning_line(theirs).find("off (GLIBC_TUNABLES sets malloc tunables)") != std::string::npos, theirs.err);

  // The report is the same whatever the heap does, but for its timings.
  auto without_timings = [](std::string json) {
    const auto at = json.find("\"timings\"");
    return at == std::string::npos ? json : json.substr(0, at);
  };
  CHECK(without_timings(plain.out) == without_timings(off.out));
  CHECK(without_timings(plain.out) == without_timings(theirs.out));
  CHECK(plain.out.find("\"saved\"") != std::string::npos);
}
