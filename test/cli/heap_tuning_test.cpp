// The start-up heap tuning (app/malloc_tuning.cpp): the tool puts the first
// 64 MiB of its heap on transparent huge pages, or for an input of 8 MiB or
// more runs again with glibc's huge-page heap, unless PT_MALLOC_TUNING=0 (or
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

// The debug line of a run that holds `key` ("heap tuning: ", ...).
std::string debug_line(const ToolResult& r, const std::string& key) {
  for (const std::string& line : r.err_lines()) {
    if (line.find(key) != std::string::npos) return line;
  }
  return "";
}

std::string tuning_line(const ToolResult& r) { return debug_line(r, "heap tuning: "); }

bool huge_pages_usable() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(in, mode);
  return mode.find("[always]") != std::string::npos || mode.find("[madvise]") != std::string::npos;
}

// Checks the state a default run logs: `on_prefix` where huge pages exist.
// False for builds without the tuning (the sanitizer builds): nothing to check.
bool check_default_state(const std::string& state, const std::string& on_prefix) {
  if (state.find("built without PT_HEAP_TUNING") != std::string::npos) {
    MESSAGE("this build has no heap tuning (sanitizer build): " << state);
    return false;
  }
  if (huge_pages_usable()) {
    CHECK_MESSAGE(state.find(on_prefix) != std::string::npos, state);
  } else {
    CHECK_MESSAGE(state.find("off (transparent huge pages disabled)") != std::string::npos, state);
  }
  return true;
}

// The report without its timings: what must not depend on the heap.
std::string without_timings(const std::string& json) {
  const auto at = json.find("\"timings\"");
  return at == std::string::npos ? json : json.substr(0, at);
}

// A run of the tool with one environment variable set (unset afterwards).
ToolResult run_with(const std::string& name, const std::string& value, const std::vector<std::string>& args) {
  setenv(name.c_str(), value.c_str(), 1);
  ToolResult r = run_tool(args);
  unsetenv(name.c_str());
  return r;
}

}  // namespace

TEST_CASE("the heap tuning: on by default where huge pages exist, off with PT_MALLOC_TUNING=0, same results") {
  unsetenv("PT_MALLOC_TUNING");
  unsetenv("GLIBC_TUNABLES");
  const ToolResult plain = run_tool({"-vv", "--input", kLinear, "--report-json", "-"});
  REQUIRE(plain.exit_code == 0);
  const std::string state = tuning_line(plain);
  REQUIRE_MESSAGE(!state.empty(), plain.err);
  if (!check_default_state(state, "heap tuning: on (the first 64 MiB")) return;

  const ToolResult off = run_with("PT_MALLOC_TUNING", "0", {"-vv", "--input", kLinear, "--report-json", "-"});
  REQUIRE(off.exit_code == 0);
  CHECK_MESSAGE(tuning_line(off).find("heap tuning: off (PT_MALLOC_TUNING=0)") != std::string::npos, off.err);

  const ToolResult theirs =
      run_with("GLIBC_TUNABLES", "glibc.malloc.check=0", {"-vv", "--input", kLinear, "--report-json", "-"});
  REQUIRE(theirs.exit_code == 0);
  CHECK_MESSAGE(tuning_line(theirs).find("off (GLIBC_TUNABLES sets malloc tunables)") != std::string::npos, theirs.err);

  // The report is the same whatever the heap does, but for its timings.
  CHECK(without_timings(plain.out) == without_timings(off.out));
  CHECK(without_timings(plain.out) == without_timings(theirs.out));
  CHECK(plain.out.find("\"saved\"") != std::string::npos);
}

TEST_CASE("an input of 8 MiB or more (or generate --layers 128+) runs with glibc's huge-page heap, same results") {
  unsetenv("PT_MALLOC_TUNING");
  unsetenv("GLIBC_TUNABLES");
  pt::test::TempDir dir;
  const std::string big = dir.file("big.pb");
  // 230 blocks: ~53,000 nodes, ~8.9 MB.
  const ToolResult generated = run_tool({"-vv", "generate", "--layers", "230", "-o", big});
  REQUIRE(generated.exit_code == 0);
  if (!check_default_state(tuning_line(generated), "heap tuning: on (the whole heap on transparent huge pages")) return;
  std::ifstream in(big, std::ios::binary | std::ios::ate);
  REQUIRE(static_cast<long long>(in.tellg()) >= (8LL << 20));
  const ToolResult small = run_tool({"-vv", "generate", "--layers=127", "-o", dir.file("small.pb")});
  REQUIRE(small.exit_code == 0);
  if (huge_pages_usable()) CHECK_MESSAGE(tuning_line(small).find("the first 64 MiB") != std::string::npos, small.err);

  // The caller's other tunables ride along; the marker does not leak into
  // the state of a run that was not re-executed (next case below).
  const ToolResult huge =
      run_with("GLIBC_TUNABLES", "glibc.rtld.optional_static_tls=1024", {"-vv", "--input", big, "--report-json", "-"});
  REQUIRE_MESSAGE(huge.exit_code == 0, huge.err);
  check_default_state(tuning_line(huge), "heap tuning: on (the whole heap on transparent huge pages");
  // The file may come as --name=value too.
  const ToolResult joined = run_tool({"-vv", "--input=" + big, "--report-json", "-"});
  REQUIRE_MESSAGE(joined.exit_code == 0, joined.err);
  check_default_state(tuning_line(joined), "heap tuning: on (the whole heap on transparent huge pages");
  CHECK(without_timings(joined.out) == without_timings(huge.out));
  // Below 64 MiB each thread keeps its own malloc arena (next case).
  if (huge_pages_usable()) {
    CHECK_MESSAGE(debug_line(joined, "malloc arenas: per thread (an input below 64 MiB)") != "", joined.err);
  }

  const ToolResult off = run_with("PT_MALLOC_TUNING", "0", {"-vv", "--input", big, "--report-json", "-"});
  REQUIRE(off.exit_code == 0);
  CHECK_MESSAGE(tuning_line(off).find("heap tuning: off (PT_MALLOC_TUNING=0)") != std::string::npos, off.err);
  CHECK_MESSAGE(debug_line(off, "malloc arenas: per thread (the heap is not tuned") != "", off.err);
  CHECK(without_timings(huge.out) == without_timings(off.out));
  CHECK(huge.out.find("\"saved\"") != std::string::npos);

  // A marker set by hand, without the tunables, turns nothing on by itself.
  const ToolResult forged =
      run_with("PT_MALLOC_TUNING", "huge-heap", {"-vv", "--input", kLinear, "--report-json", "-"});
  REQUIRE(forged.exit_code == 0);
  CHECK_MESSAGE(tuning_line(forged).find("the whole heap") == std::string::npos, forged.err);

  // Bad input is reported by the second run as by the first: one line naming
  // the file, exit code 2.
  const std::string junk = dir.file("junk.pb");
  {
    std::ofstream j(junk, std::ios::binary);
    j << std::string(9 << 20, '\xff');
  }
  const ToolResult bad = run_tool({"--input", junk, "--report-json", dir.file("r.json")});
  CHECK(bad.exit_code == 2);
  REQUIRE(bad.err_lines().size() == 1);
  CHECK(bad.err_lines()[0].find(junk) != std::string::npos);
  CHECK(!std::ifstream(dir.file("r.json")).good());
}

// From 64 MiB of input the main command puts every thread on glibc's main
// arena (app/malloc_tuning.cpp, share_main_arena), so that the threads of
// later stages reuse what earlier ones freed; other commands and the
// untuned heap keep an arena per thread. Results never depend on it.
TEST_CASE("the main command on an input of 64 MiB or more runs on one malloc arena, same results") {
  unsetenv("PT_MALLOC_TUNING");
  unsetenv("GLIBC_TUNABLES");
  // Builds without the tuning (the sanitizer builds, where the graph below
  // would take minutes) have nothing to check.
  const ToolResult small = run_tool({"-vv", "--input", kLinear});
  REQUIRE(small.exit_code == 0);
  if (!check_default_state(tuning_line(small), "heap tuning: on (the first 64 MiB")) return;
  CHECK_MESSAGE(debug_line(small, "malloc arenas: per thread (the heap is not tuned") != "", small.err);
  pt::test::TempDir dir;
  const std::string big = dir.file("big.pb");
  // 1,750 blocks: ~413,000 nodes, ~69 MB.
  const ToolResult generated = run_tool({"generate", "--layers", "1750", "-o", big});
  REQUIRE(generated.exit_code == 0);
  std::ifstream in(big, std::ios::binary | std::ios::ate);
  REQUIRE(static_cast<long long>(in.tellg()) >= (64LL << 20));
  const ToolResult one = run_tool({"-vv", "--input", big, "--report-json", "-"});
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  if (!check_default_state(tuning_line(one), "heap tuning: on (the whole heap on transparent huge pages")) return;
  if (huge_pages_usable()) {
    CHECK_MESSAGE(debug_line(one, "malloc arenas: one (every thread on the main arena") != "", one.err);
  } else {
    CHECK_MESSAGE(debug_line(one, "malloc arenas: per thread (the heap is not tuned") != "", one.err);
  }
  const ToolResult off = run_with("PT_MALLOC_TUNING", "0", {"-vv", "--input", big, "--report-json", "-"});
  REQUIRE(off.exit_code == 0);
  CHECK_MESSAGE(debug_line(off, "malloc arenas: per thread (the heap is not tuned") != "", off.err);
  CHECK(without_timings(one.out) == without_timings(off.out));
  CHECK(one.out.find("\"saved\"") != std::string::npos);
}

// The start-up prefault of the tool's code (app/prefault_text.cpp): off by
// default, on with PT_PREFAULT_TEXT=1 where the build has it and the kernel
// knows MADV_POPULATE_READ; -vv logs which. Results never depend on it.
TEST_CASE("the text prefault: off by default, on with PT_PREFAULT_TEXT=1, same results") {
  unsetenv("PT_PREFAULT_TEXT");
  auto state_of = [](const ToolResult& r) {
    for (const std::string& line : r.err_lines()) {
      if (line.find("text prefault: ") != std::string::npos) return line;
    }
    return std::string();
  };
  const ToolResult plain = run_tool({"-vv", "--input", kLinear, "--report-json", "-"});
  REQUIRE(plain.exit_code == 0);
  const std::string state = state_of(plain);
  REQUIRE_MESSAGE(!state.empty(), plain.err);
  if (state.find("built without PT_HEAP_TUNING") != std::string::npos) {
    MESSAGE("this build has no start-up tuning (sanitizer build): " << state);
    return;
  }
  CHECK_MESSAGE(state.find("text prefault: off (the default; PT_PREFAULT_TEXT=1 turns it on)") != std::string::npos,
                state);

  const ToolResult on = run_with("PT_PREFAULT_TEXT", "1", {"-vv", "--input", kLinear, "--report-json", "-"});
  REQUIRE(on.exit_code == 0);
  const std::string on_state = state_of(on);
  const bool populated = on_state.find("text prefault: on") != std::string::npos;
  const bool refused = on_state.find("text prefault: off (madvise refused MADV_POPULATE_READ)") != std::string::npos;
  CHECK_MESSAGE((populated || refused), on_state);
  // Any other value leaves it off.
  const ToolResult zero = run_with("PT_PREFAULT_TEXT", "0", {"-vv", "--input", kLinear, "--report-json", "-"});
  REQUIRE(zero.exit_code == 0);
  CHECK_MESSAGE(state_of(zero).find("text prefault: off (the default") != std::string::npos, zero.err);
  CHECK(without_timings(plain.out) == without_timings(on.out));
  CHECK(plain.out.find("\"saved\"") != std::string::npos);
}
