// Determinism: the same graph and settings give byte-identical output files
// and reports across runs (separate processes, so hash seeds and addresses
// differ). For every corpus graph (test/corpus/*.pb; scale/ is skipped for
// time) under every setting of the corpus, two runs of
// `partition_tool --input G --set ... --output P --report-json R --report`
// write the same P (pb, pbtxt or json, rotating so that every graph is
// written in every format), the same R apart from its `timings` object, and
// the same text report. Nothing in the tool uses threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/tool_runner.h"
#include "support/under_sanitizer.h"

namespace {

using pt::test::read_all;
using pt::test::run_tool;

// The corpus settings (ref.json `runs[].config`), as --set arguments.
const std::vector<std::vector<std::string>> kSettings = {
    {},
    {"dist_from_bw_base=1.0"},
    {"dist_from_bw_cap=1"},
    {"recompute_views=true"},
    {"aggressive_recomputation=true"},
    {"ban_recompute_reductions=false"},
    {"treat_parameters_as_free_to_save=false"},
    {"cse=false"},
    {"activation_memory_budget=0.5"},
    {"activation_memory_budget=0.1"},
};

const std::vector<std::string> kFormats = {"pb", "pbtxt", "json"};

// Under the sanitizers, where each run takes about ten times as long, every
// graph runs under three of the settings (the default, aggressive
// recomputation and a memory budget), still once in each output format;
// the normal suite runs all ten.
#ifdef PT_UNDER_SANITIZER
const std::vector<size_t> kSettingsRun = {0, 4, 8};
#else
const std::vector<size_t> kSettingsRun = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
#endif

std::vector<std::string> corpus_graphs() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(PT_TEST_DIR) + "/corpus")) {
    if (e.path().extension() == ".pb") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The report without its "timings": {...} object, the one part allowed to vary.
std::string without_timings(std::string json) {
  const size_t key = json.find("\"timings\"");
  if (key == std::string::npos) return json;
  size_t at = json.find('{', key);
  REQUIRE(at != std::string::npos);
  int depth = 0;
  size_t end = at;
  for (; end < json.size(); ++end) {
    if (json[end] == '{') ++depth;
    if (json[end] == '}' && --depth == 0) break;
  }
  REQUIRE(end < json.size());
  return json.erase(key, end + 1 - key);
}

struct Outputs {
  std::string partition;
  std::string report_json;
  std::string report_text;
};

Outputs run_once(const std::string& graph, const std::vector<std::string>& settings, const std::string& format,
                 const pt::test::TempDir& work, int k) {
  const std::string partition = work.file("partition" + std::to_string(k) + "." + format);
  const std::string report = work.file("report" + std::to_string(k) + ".json");
  std::vector<std::string> args{"--input", graph, "--output", partition, "--report-json", report, "--report"};
  for (const auto& s : settings) {
    args.push_back("--set");
    args.push_back(s);
  }
  const pt::test::ToolResult r = run_tool(args);
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  return {read_all(partition), read_all(report), r.out};
}

}  // namespace

TEST_CASE("two runs on every corpus graph and setting give identical bytes") {
  const auto graphs = corpus_graphs();
  REQUIRE(graphs.size() >= 6);
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    for (size_t run = 0; run < kSettingsRun.size(); ++run) {
      const size_t si = kSettingsRun[run];
      const std::string& format = kFormats[(gi + run) % kFormats.size()];
      const std::string setting = kSettings[si].empty() ? "default" : kSettings[si][0];
      CAPTURE(graphs[gi]);
      CAPTURE(setting);
      CAPTURE(format);
      pt::test::TempDir work;
      const Outputs a = run_once(graphs[gi], kSettings[si], format, work, 1);
      const Outputs b = run_once(graphs[gi], kSettings[si], format, work, 2);
      CHECK(!a.partition.empty());
      CHECK(a.partition == b.partition);
      CHECK(a.report_json.find("\"timings\"") != std::string::npos);
      CHECK(without_timings(a.report_json) == without_timings(b.report_json));
      CHECK(a.report_text == b.report_text);
    }
  }
}
