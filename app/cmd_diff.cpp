// partition_tool diff: two cuts of one graph (two sets of settings), or two
// saved JSON reports. Exit 0 when the cuts are identical, 1 when they
// differ, 2 on error.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_common.h"
#include "commands.h"
#include "graph/errors.h"
#include "partition_args.h"
#include "pipeline/pipeline.h"
#include "plan/apply_memory_limit.h"
#include "report/diff.h"
#include "report/memory_plot_svg.h"
#include "report/report_model.h"

namespace pt::app {

namespace {

constexpr int kIdentical = 0;
constexpr int kDifferent = 1;

struct DiffOptions {
  InputArgs input;
  SettingsArgs a, b;
  ModelArgs model;
  std::string report_a, report_b;
  bool json = false;
  size_t top = 20;
  std::string plot_memory;  // A's and B's timelines on one SVG; empty: none
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open report");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `plots`, when given, receives the cut's memory timeline. Under
// memory_limit the plan's cut is the one summarized.
CutSummary cut_of(const Graph& joint, const Settings& s, const ModelArgs& model, const std::string& label,
                  std::vector<MemoryPlotSeries>* plots) {
  Partitioned p = partition_joint(joint, s);
  const Device device = model.resolve_device();
  const BandwidthOptions options = model.resolve_options();
  const LimitedPlan limited = apply_memory_limit(p, s, device, options);
  ReportModel m = build_report({joint, p, limited.settings, device, options, {}, plots != nullptr});
  if (plots) {
    m.memory_plot->label = label;
    plots->push_back(std::move(*m.memory_plot));
  }
  return summarize_cut(m, label);
}

int run_diff(const DiffOptions& o) {
  const bool from_reports = !o.report_a.empty() || !o.report_b.empty();
  CutSummary a, b;
  if (from_reports) {
    if (o.report_a.empty() || o.report_b.empty()) throw InputError("diff: give both --report-a and --report-b");
    if (!o.input.path.empty()) throw InputError("diff: --input and --report-a/--report-b exclude each other");
    a = read_report_json(read_text(o.report_a), o.report_a);
    b = read_report_json(read_text(o.report_b), o.report_b);
  } else {
    if (o.input.path.empty()) throw InputError("diff: give --input GRAPH (or --report-a and --report-b)");
    const Settings sa = o.a.resolve(), sb = o.b.resolve();
    if (!o.plot_memory.empty()) check_output_paths(o.input.path, {{"--plot-memory", o.plot_memory}});
    const LoadedGraph loaded = o.input.load();
    std::vector<MemoryPlotSeries> plots;
    a = cut_of(loaded.graph, sa, o.model, "A", o.plot_memory.empty() ? nullptr : &plots);
    b = cut_of(loaded.graph, sb, o.model, "B", o.plot_memory.empty() ? nullptr : &plots);
    if (!plots.empty()) {
      std::ostringstream svg;
      write_memory_svg(svg, loaded.graph.header->name() + " (A vs. B)", plots);
      write_files_atomically({{o.plot_memory, svg.str()}});
    }
  }
  const CutDiff d = diff_cuts(a, b);
  if (o.json) write_diff_json(std::cout, a, b, d);
  else write_diff_text(std::cout, a, b, d, o.top);
  return d.identical ? kIdentical : kDifferent;
}

}  // namespace

Action add_diff_command(CLI::App& sub) {
  auto o = std::make_shared<DiffOptions>();
  add_input_options(sub, o->input, false);
  add_settings_options(sub, o->a, "-a", "side A");
  add_settings_options(sub, o->b, "-b", "side B");
  add_model_options(sub, o->model);
  sub.add_option("--report-a", o->report_a, "Compare two saved reports instead: side A (from --report-json)")
      ->type_name("A.json");
  sub.add_option("--report-b", o->report_b, "Side B's saved report")->type_name("B.json");
  sub.add_flag("--json", o->json, "Print the diff as JSON (identical, a, b, saved_only_a/b, recomputed_only_a/b, delta)");
  sub.add_option("--top", o->top, "Rows per list of moved values; 0 lists all (default 20)")->type_name("N");
  sub.add_option("--plot-memory", o->plot_memory,
                 "Write A's and B's memory timelines on one SVG chart to PATH (with --input)")
      ->type_name("PATH.svg");
  sub.footer(
      "Partitions GRAPH under two sets of settings (A and B; each defaults to PyTorch's)\n"
      "and shows what moved: values saved only by one side, ops recomputed only by one\n"
      "side, and B - A for the saved bytes and the bandwidth model's forward and backward\n"
      "traffic and time on --device. With --report-a/--report-b it compares two reports\n"
      "saved earlier with --report-json (other graphs, other versions) the same way.\n\n"
      "Exit codes: 0 the cuts are identical (same saved values and symbols); 1 they\n"
      "differ; 2 bad input, settings or command line; 3 no finite cut.\n\n"
      "Examples:\n"
      "  partition_tool diff --input sample_graphs/linear_ce.pb \\\n"
      "      --set-a dist_from_bw_base=1.1 --set-b dist_from_bw_base=1.2 --device a100\n"
      "  partition_tool diff --report-a before.json --report-b after.json --json");
  return [o] { return run_diff(*o); };
}

}  // namespace pt::app
