// The main command's work, once per graph: load -> validate -> prepare ->
// partition, then the requested outputs over all the graphs. Every output
// goes to one OutputBatch (the partition streamed into its temporary, the
// reports rendered to memory), so an error leaves no partial file.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <spdlog/spdlog.h>

#include "cli_common.h"
#include "cmd_partition.h"
#include "graph/graph_io.h"
#include "graph/output_batch.h"
#include "partition/partition_message.h"
#include "pipeline/pipeline.h"
#include "plan/apply_memory_limit.h"
#include "report/explain.h"
#include "graph/human_units.h"
#include "report/memory_plot_svg.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/report_markdown.h"
#include "report/report_model.h"
#include "report/report_text.h"
#include "report/report_totals.h"
#include "graph/visible_text.h"
#include "run_stage.h"

namespace pt::app {

namespace {

// The report's `source`: relative to the current directory where the file
// lies below it, so that two checkouts' reports of the same graphs compare
// byte for byte; elsewhere as given.
std::string relative_source(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path relative = fs::proximate(path, ec);
  if (ec || relative.empty() || *relative.begin() == "..") return path;
  return relative.string();
}

// One graph's partition, with what the outputs need of it.
struct GraphRun {
  std::string path;
  std::string name;
  uint64_t saved_bytes = 0;
  size_t saved_count = 0;
  size_t recomputed_count = 0;
  std::optional<ReportModel> model;
  std::string html;  // --report-html: the page (needs the partition, gone after run_one)
};

// Partitions `path`; adds its partition to `outputs` when asked (--output).
GraphRun run_one(const MainOptions& o, const std::string& path, OutputBatch& outputs) {
  const Format format = resolve_format(path, o.input_format_name);
  LoadedGraph loaded = load_joint_graph(path, format, o.limits);
  spdlog::info("loaded {}: {} nodes", path, loaded.graph.size());
  const JointSummary joint(loaded.graph);
  set_stage("partitioning " + path);
  Partitioned p = partition_joint_releasing(loaded.graph, o.settings);
  // Under memory_limit the planner replaces the default partition with the
  // fastest plan that fits (InfeasibleError, exit 3, when none does); the
  // report and the written partition then use that plan's settings.
  set_stage("planning " + path + " under the memory limit");
  const LimitedPlan limited = apply_memory_limit(p, o.settings, o.device, o.bandwidth);
  const Settings& settings = limited.settings;
  if (limited.plan) {
    spdlog::info("memory limit {}: {} ({} candidates, {:.3f} s)", human_bytes(limited.plan->limit),
                 limited.plan->chosen.description(), limited.plan->candidate_count, limited.plan->search_seconds);
  }
  const Graph& g = p.prepared.graph;
  const Extraction& e = p.result.extraction;
  spdlog::info("saved {} values, recomputed {} ops, cut value {}", e.fw_saved_outputs().size(),
               e.recomputed.size(), to_string(p.result.solution.cut.value));

  std::vector<StageTiming> timings = loaded.timings;
  timings.insert(timings.end(), p.timings.begin(), p.timings.end());
  // The plan search is a stage like the others: its time is a timing, left
  // out with --no-timings, not a field of the plan.
  if (limited.plan) timings.push_back({"plan", limited.plan->search_seconds});
  StageTimer timer;
  // Nothing below reads the flow network's arcs or weights (the report
  // reads its bans and counts): free them before the outputs and the report
  // allocate (~0.1 GB at 10^6 nodes), which reuse those pages.
  p.result.solution.network.release_arcs();

  GraphRun run;
  run.path = path;
  run.name = joint.name;
  for (NodeId id : e.fw_saved_outputs()) run.saved_bytes += g[id].size_bytes;
  run.saved_count = e.fw_saved_outputs().size();
  run.recomputed_count = e.recomputed.size();
  if (!o.output.empty()) {
    set_stage("writing the partition of " + path);
    outputs.add(o.output, [&](const OutputBatch::Sink& write) {
      write_partition(g, p.result.classification, e, settings, *o.output_format, write);
    });
    timer.mark("write", timings);
  }
  const bool memory_plot = !o.plot_memory.empty() || !o.report_html.empty();
  if (o.report || !o.report_json.empty() || !o.report_md.empty() || memory_plot) {
    set_stage("building the report of " + path);
    run.model = build_report({joint, p, settings, o.device, o.bandwidth, {}, memory_plot});
    run.model->plan = limited.plan;
    // "report" times the model (bandwidth model, peak memory); the reports
    // then carry every stage's timing but their own formatting.
    timer.mark("report", timings);
    if (!o.no_timings) run.model->timings = timings;
    run.model->source = relative_source(path);
    if (!o.report_html.empty()) {
      set_stage("rendering the HTML report of " + path);
      ExplainTable explanations;
      explain_each(p, settings, [&](const Explanation& x) { explanations.add(x); });
      std::ostringstream html;
      write_report_html(html, *run.model, explanations, o.top);
      run.html = std::move(html).str();
    }
  }
  // The process ends soon: like clang's -disable-free, hand the graphs to a
  // never-freed holder instead of destroying them node by node (a tenth of
  // a 10^6-node run). The holder stays reachable, so LeakSanitizer is quiet.
  static auto* const kept = new std::vector<std::shared_ptr<void>>;
  kept->push_back(std::make_shared<Partitioned>(std::move(p)));
  kept->push_back(std::make_shared<LoadedGraph>(std::move(loaded)));
  return run;
}

std::string totals_line(const std::vector<const ReportModel*>& models) {
  const ReportTotals t = total_of(models);
  return "totals over " + std::to_string(t.graphs) + " graphs: saved " + std::to_string(t.saved_count) +
         " values (" + human_bytes(t.saved_bytes) + "), recomputed " + std::to_string(t.recomputed_count) +
         " ops, largest peak " + human_bytes(t.peak_bytes_max) + "\n";
}

}  // namespace

int run_main_command(const MainOptions& o) {
  // --output takes one graph (main_options.cpp).
  OutputBatch outputs = output_batch();
  std::vector<GraphRun> runs;
  for (const std::string& path : o.graphs) runs.push_back(run_one(o, path, outputs));

  if (runs.front().model) {
    std::vector<const ReportModel*> models;
    for (const GraphRun& r : runs) models.push_back(&*r.model);
    const bool several = models.size() > 1;
    const TextReportOptions text_options{o.top};
    set_stage("rendering the reports");
    if (o.report) {
      std::ostringstream text;
      for (size_t i = 0; i < models.size(); ++i) {
        if (i) text << "\n";
        write_report_text(text, *models[i], text_options);
      }
      if (several) text << "\n" << totals_line(models);
      add_text_output(outputs, "-", std::move(text).str());
    }
    if (!o.report_json.empty()) {
      std::ostringstream json;  // 50 MB at 10^6 nodes
      if (several) write_reports_json(json, models);
      else write_report_json(json, *models.front());
      add_text_output(outputs, o.report_json, std::move(json).str());
    }
    if (!o.report_md.empty()) {
      std::ostringstream md;
      if (several) write_reports_markdown(md, models, text_options);
      else write_report_markdown(md, *models.front(), text_options);
      add_text_output(outputs, o.report_md, std::move(md).str());
    }
    if (!o.plot_memory.empty()) {
      // One curve per graph on one chart.
      std::vector<MemoryPlotSeries> curves;
      for (const ReportModel* m : models) {
        curves.push_back(*m->memory_plot);
        if (several) curves.back().label = m->graph;
      }
      std::ostringstream svg;
      write_memory_svg(svg, several ? "memory of " + std::to_string(models.size()) + " graphs" : models.front()->graph,
                       curves);
      add_text_output(outputs, o.plot_memory, std::move(svg).str());
    }
    if (!o.report_html.empty()) add_text_output(outputs, o.report_html, std::move(runs.front().html));
  }
  set_stage("writing the outputs");
  outputs.commit();
  const bool stdout_taken = o.report || o.output == "-" || o.report_json == "-" || o.report_md == "-";
  if (!stdout_taken && !quiet()) {
    // A short summary when no result was asked for on stdout (-q: none).
    for (const GraphRun& r : runs) {
      std::string line = r.name + ": saved " + std::to_string(r.saved_count) + " values (" +
                         human_bytes(r.saved_bytes) + "), recomputed " + std::to_string(r.recomputed_count) + " ops";
      if (!o.output.empty()) line += "; partition written to " + o.output;
      std::cout << visible_text(line) << "\n";
    }
  }
  // The report models too: their rows, names and per-node tables took
  // ~450K instructions to free (callgrind, gpt2_124m), 1% of the run.
  static auto* const kept_models = new std::vector<GraphRun>;
  for (GraphRun& r : runs) kept_models->push_back(std::move(r));
  return 0;
}

}  // namespace pt::app
