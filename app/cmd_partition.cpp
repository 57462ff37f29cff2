// The main command's work. In this build the partitioning engine is not
// wired in yet: the command loads and validates the graph, applies the
// settings and prints the graph summary, and says plainly that it did not
// partition. It writes neither --output nor --report-json.
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "cli_common.h"
#include "cmd_partition.h"
#include "graph_summary.h"

namespace pt::app {

int run_main_command(const MainOptions& o) {
  const Graph g = load_graph(o.input, o.input_format_name);
  spdlog::info("loaded {}: {} nodes", o.input, g.size());
  print_summary_text(std::cout, summarize(g, std::string(format_name(o.input_format)), 10));

  const auto changed = o.settings.changed_keys();
  const auto values = o.settings.to_map();
  std::vector<std::string> shown;
  for (const auto& k : changed) {
    auto it = values.find(k);
    shown.push_back(it == values.end() ? k + " (edited)" : k + "=" + it->second);
  }
  std::cout << "settings: " << (shown.empty() ? "PyTorch defaults" : fmt::format("{}", fmt::join(shown, ", ")))
            << "\n";

  std::string skipped;
  if (!o.output.empty()) skipped += "; " + o.output + " was not written";
  if (!o.report_json.empty()) skipped += "; no JSON report was written";
  spdlog::warn("partitioning is not implemented in this build: the graph was loaded and validated, "
               "nothing was partitioned{}",
               skipped);
  return 0;
}

}  // namespace pt::app
