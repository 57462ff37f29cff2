// The main command's work: load -> validate -> prepare -> partition, then
// the requested outputs. Every output is rendered to memory first and
// written atomically, so an error leaves no partial file.
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
#include "report/explain.h"
#include "plan/apply_memory_limit.h"
#include "report/human_units.h"
#include "report/memory_plot_svg.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/report_markdown.h"
#include "report/report_model.h"
#include "report/report_text.h"

namespace pt::app {

int run_main_command(const MainOptions& o) {
  LoadedGraph loaded = load_graph_file(o.input, o.input_format, o.limits);
  spdlog::info("loaded {}: {} nodes", o.input, loaded.graph.size());
  const JointSummary joint(loaded.graph);
  Partitioned p = partition_joint_releasing(loaded.graph, o.settings);
  // Under memory_limit the planner replaces the default partition with the
  // fastest plan that fits (InfeasibleError, exit 3, when none does); the
  // report and the written partition then use that plan's settings.
  const LimitedPlan limited = apply_memory_limit(p, o.settings, o.device, o.bandwidth);
  const Settings& settings = limited.settings;
  const std::optional<MemoryPlan>& plan = limited.plan;
  if (plan) {
    spdlog::info("memory limit {}: {} ({} candidates, {:.3f} s)", human_bytes(plan->limit),
                 plan->chosen.description(), plan->candidate_count, plan->search_seconds);
  }
  const Graph& g = p.prepared.graph;
  const Extraction& e = p.result.extraction;
  spdlog::info("saved {} values, recomputed {} ops, cut value {}", e.fw_saved_outputs().size(),
               e.recomputed.size(), to_string(p.result.solution.cut.value));

  std::vector<StageTiming> timings = loaded.timings;
  timings.insert(timings.end(), p.timings.begin(), p.timings.end());
  StageTimer timer;
  // Nothing below reads the flow network's arcs or weights (the report
  // reads its bans and counts): free them before the outputs and the report
  // allocate (~0.1 GB at 10^6 nodes), which reuse that memory.
  p.result.solution.network.release_arcs();

  // Each output goes to its temporary as soon as it exists, so the
  // partition's bytes are freed before the report is built, and the JSON
  // report streams into its file; all are renamed into place together.
  OutputBatch outputs;
  if (!o.output.empty()) {
    if (*o.output_format == Format::Binary) {
      outputs.add(o.output, [&](std::ostream& out) {
        write_partition_binary(out, g, p.result.classification, e, settings);
      });
    } else {
      const auto partition = partition_message(g, p.result.classification, e, settings);
      outputs.add(o.output, serialize_message(*partition, *o.output_format));
    }
    timer.mark("write", timings);
  }
  std::string text_report, json_report, md_report;
  std::optional<ReportModel> model;
  const bool memory_plot = !o.plot_memory.empty() || !o.report_html.empty();
  if (o.report || !o.report_json.empty() || !o.report_md.empty() || memory_plot) {
    model = build_report({joint, p, settings, o.device, o.bandwidth, {}, memory_plot});
    // "report" times the model (bandwidth model, peak memory); the reports
    // then carry every stage's timing but their own formatting.
    timer.mark("report", timings);
    model->timings = timings;
    model->plan = plan;
    const TextReportOptions text_options{o.top};
    std::ostringstream text, json, md;
    if (o.report) write_report_text(text, *model, text_options);
    if (o.report_json == "-") write_report_json(json, *model);
    if (!o.report_md.empty()) write_report_markdown(md, *model, text_options);
    text_report = std::move(text).str();  // the buffer itself, not a copy
    json_report = std::move(json).str();
    md_report = std::move(md).str();
    if (!o.report_json.empty() && o.report_json != "-") {
      outputs.add(o.report_json, [&](std::ostream& out) { write_report_json(out, *model); });  // 50 MB at 10^6 nodes
    }
    if (!o.plot_memory.empty()) {
      outputs.add(o.plot_memory, [&](std::ostream& out) { write_memory_svg(out, model->graph, {*model->memory_plot}); });
    }
    if (!o.report_html.empty()) {
      ExplainTable explanations;
      explain_each(p, settings, [&](const Explanation& x) { explanations.add(x); });
      outputs.add(o.report_html,
                  [&](std::ostream& out) { write_report_html(out, *model, explanations, o.top); });
    }
  }
  if (!o.report_md.empty() && o.report_md != "-") outputs.add(o.report_md, md_report);
  outputs.commit();
  if (o.report) std::cout << text_report;
  if (o.report_json == "-") std::cout << json_report;
  if (o.report_md == "-") std::cout << md_report;
  if (!o.report && o.report_json != "-" && o.report_md != "-") {
    // A short summary when no report was asked for on stdout.
    uint64_t bytes = 0;
    for (NodeId id : e.fw_saved_outputs()) bytes += g[id].size_bytes;
    std::cout << joint.name << ": saved " << e.fw_saved_outputs().size() << " values ("
              << human_bytes(bytes) << "), recomputed " << e.recomputed.size() << " ops";
    if (!o.output.empty()) std::cout << "; partition written to " << o.output;
    std::cout << "\n";
  }
  // The process ends here: like clang's -disable-free, hand the graphs to a
  // never-freed holder instead of destroying them node by node (a tenth of a
  // 10^6-node run). The holder stays reachable, so LeakSanitizer is quiet.
  static auto* const kept = new std::vector<std::shared_ptr<void>>;
  kept->push_back(std::make_shared<Partitioned>(std::move(p)));
  kept->push_back(std::make_shared<LoadedGraph>(std::move(loaded)));
  // The report model too: its rows, names and per-node tables took ~450K
  // instructions to free (callgrind, gpt2_124m), 1% of the run.
  if (model) kept->push_back(std::make_shared<ReportModel>(std::move(*model)));
  return 0;
}

}  // namespace pt::app
