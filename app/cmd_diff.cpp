// partition_tool diff: two cuts of each graph (two sets of settings), or two
// saved JSON reports. Exit 0 when the cuts are identical (of every graph),
// 1 when any differ, 2 on error.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_common.h"
#include "run_stage.h"
#include "commands.h"
#include "graph/output_batch.h"
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
  std::string report_md;  // Markdown diff; "-": stdout instead of the text
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
  m.plan = limited.plan;
  if (plots) {
    m.memory_plot->label = label;
    plots->push_back(std::move(*m.memory_plot));
  }
  return summarize_cut(m, label);
}

int run_diff(const DiffOptions& o) {
  const bool from_reports = !o.report_a.empty() || !o.report_b.empty();
  const std::vector<std::string> graphs = from_reports ? std::vector<std::string>{} : expand_graph_inputs(o.input.all());
  std::vector<std::string> inputs = graphs;
  for (const std::string* p : {&o.a.config_path, &o.b.config_path, &o.report_a, &o.report_b}) inputs.push_back(*p);
  const bool md_on_stdout = o.report_md == "-";
  check_output_paths(inputs, {{o.json ? "--json" : "the text diff", md_on_stdout && !o.json ? "" : "-"},
                              {"--report-md", o.report_md},
                              {"--plot-memory", o.plot_memory}});
  std::vector<GraphDiff> diffs;
  std::vector<MemoryPlotSeries> plots;  // A's and B's timelines (--plot-memory)
  if (from_reports) {
    if (!o.plot_memory.empty()) throw InputError("diff: --plot-memory needs --input graphs, not saved reports");
    if (o.report_a.empty() || o.report_b.empty()) throw InputError("diff: give both --report-a and --report-b");
    if (!o.input.all().empty()) throw InputError("diff: --input and --report-a/--report-b exclude each other");
    set_stage("reading " + o.report_a);
    std::vector<CutSummary> a = read_reports_json(read_text(o.report_a), o.report_a);
    set_stage("reading " + o.report_b);
    std::vector<CutSummary> b = read_reports_json(read_text(o.report_b), o.report_b);
    if (a.size() != b.size()) {
      throw InputError("diff: " + o.report_a + " holds " + std::to_string(a.size()) + " graphs and " + o.report_b +
                       " " + std::to_string(b.size()) + "; compare reports of the same graphs");
    }
    for (size_t i = 0; i < a.size(); ++i) diffs.push_back({std::move(a[i]), std::move(b[i]), {}});
  } else {
    if (graphs.empty()) throw InputError("diff: give --input GRAPH (or --report-a and --report-b)");
    const Settings sa = o.a.resolve(), sb = o.b.resolve();
    std::vector<MemoryPlotSeries>* plot = o.plot_memory.empty() ? nullptr : &plots;
    for (const std::string& path : graphs) {
      const LoadedGraph loaded = o.input.load(path);
      GraphDiff& g = diffs.emplace_back();
      set_stage("partitioning " + path + " with settings A");
      g.a = cut_of(loaded.graph, sa, o.model, "A", plot);
      set_stage("partitioning " + path + " with settings B");
      g.b = cut_of(loaded.graph, sb, o.model, "B", plot);
    }
  }
  bool identical = true;
  for (GraphDiff& g : diffs) {
    g.d = diff_cuts(g.a, g.b);
    identical = identical && g.d.identical;
  }
  OutputBatch outputs = output_batch();
  std::ostringstream main;
  if (o.json && diffs.size() == 1) {
    write_diff_json(main, diffs[0].a, diffs[0].b, diffs[0].d);
  } else if (o.json) {
    write_diffs_json(main, diffs);
  } else if (!md_on_stdout) {
    for (size_t i = 0; i < diffs.size(); ++i) {
      if (i) main << "\n";
      write_diff_text(main, diffs[i].a, diffs[i].b, diffs[i].d, o.top);
    }
    if (diffs.size() > 1) {
      const auto differ = std::count_if(diffs.begin(), diffs.end(), [](const GraphDiff& g) { return !g.d.identical; });
      main << "\n" << differ << " of " << diffs.size() << " graphs' cuts differ\n";
    }
  }
  if (o.json || !md_on_stdout) add_text_output(outputs, "-", std::move(main).str());
  if (!plots.empty()) {
    // With several graphs each curve names its graph (two curves a graph).
    if (diffs.size() > 1) {
      for (size_t i = 0; i < plots.size(); ++i) plots[i].label = diffs[i / 2].a.graph + " " + plots[i].label;
    }
    std::ostringstream svg;
    write_memory_svg(svg, diffs.size() == 1 ? diffs[0].a.graph + " (A vs. B)" : "A vs. B", plots);
    add_text_output(outputs, o.plot_memory, std::move(svg).str());
  }
  if (!o.report_md.empty()) {
    std::ostringstream md;
    write_diff_markdown(md, diffs, o.top);
    add_text_output(outputs, o.report_md, std::move(md).str());
  }
  set_stage("writing the outputs");
  outputs.commit();
  return identical ? kIdentical : kDifferent;
}

}  // namespace

Action add_diff_command(CLI::App& sub) {
  auto o = std::make_shared<DiffOptions>();
  add_input_options(sub, o->input, true);
  add_settings_options(sub, o->a, "-a", "side A");
  add_settings_options(sub, o->b, "-b", "side B");
  add_model_options(sub, o->model);
  sub.add_option("--report-a", o->report_a, "Compare two saved reports instead: side A (from --report-json)")
      ->type_name("A.json");
  sub.add_option("--report-b", o->report_b, "Side B's saved report")->type_name("B.json");
  sub.add_option("--report-md", o->report_md,
                 "Also write the diff as Markdown to PATH, for a pull-request comment ('-': stdout, instead of "
                 "the text)")
      ->type_name("PATH|-");
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
      "saved earlier with --report-json (other graphs, other versions) the same way.\n"
      "Several graphs (repeated --input, or a directory) give one diff per graph and\n"
      "one exit code over all.\n\n"
      "Exit codes: 0 the cuts are identical (same saved values and symbols); 1 they\n"
      "differ; 2 bad input, settings or command line; 3 no finite cut.\n\n"
      "Examples:\n"
      "  partition_tool diff --input sample_graphs/linear_ce.pb \\\n"
      "      --set-a dist_from_bw_base=1.1 --set-b dist_from_bw_base=1.2 --device a100\n"
      "  partition_tool diff --report-a before.json --report-b after.json --json\n"
      "  partition_tool diff -i graphs/ --set-b dist_from_bw_base=1.2 --report-md diff.md");
  return [o] { return run_diff(*o); };
}

}  // namespace pt::app
