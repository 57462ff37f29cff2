// partition_tool sweep --input G --key K --values ... | --range a:b:step:
// one row per value of one setting.
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "cli_common.h"
#include "run_stage.h"
#include "graph/errors.h"
#include "graph/graph_io.h"
#include "partition_args.h"
#include "pipeline/pipeline.h"
#include "report/setting_values.h"
#include "report/sweep.h"
#include "report/sweep_plot.h"

namespace pt::app {

namespace {

struct SweepOptions {
  InputArgs input;
  std::string key;
  std::string values;
  std::string range;
  SettingsArgs settings;
  ModelArgs model;
  bool csv = false;
  bool json = false;
  std::string plot;   // SVG path; empty: none
  std::string plot_x = "saved";
  std::string plot_memory;  // every row's memory timeline on one SVG; empty: none
  unsigned jobs = 0;  // 0: every hardware thread
};

int run_sweep_command(const SweepOptions& o) {
  if (o.values.empty() == o.range.empty()) throw SettingsError("sweep: give exactly one of --values and --range");
  const Settings base = o.settings.resolve();
  const SettingValue kind = typed_setting(base, o.key);
  if (!o.range.empty() && kind.kind != SettingValue::Kind::Number) {
    throw SettingsError("sweep: --range needs a numeric key; " + o.key + " takes --values");
  }
  const auto values = o.range.empty() ? sweep_values_from_list(o.values) : sweep_values_from_range(o.range);
  const std::string input = o.input.path();
  std::vector<std::string> inputs = {input, o.settings.config_path};
  check_output_paths(inputs, {{"the sweep's rows", "-"}, {"--plot", o.plot}, {"--plot-memory", o.plot_memory}});
  const LoadedGraph loaded = o.input.load(input);
  // A curve per value shares the chart: fewer points each (at least 50).
  const size_t plot_points =
      o.plot_memory.empty() ? 0 : std::max<size_t>(50, kMemoryPlotPoints / std::max<size_t>(1, values.size()));
  set_stage("sweeping " + o.key + " on " + input);
  const SweepResult r = run_sweep(loaded.graph, base, o.key, values, o.model.resolve_device(),
                                  o.model.resolve_options(), o.jobs, plot_points);
  OutputBatch outputs = output_batch();
  if (!o.plot_memory.empty()) {
    std::vector<MemoryPlotSeries> curves;
    for (const SweepRow& row : r.rows) {
      if (row.memory_plot) curves.push_back(*row.memory_plot);
    }
    std::ostringstream svg;
    write_memory_svg(svg, r.graph + " (sweeping " + o.key + ")", curves);
    add_text_output(outputs, o.plot_memory, std::move(svg).str());
  }
  if (!o.plot.empty()) {
    std::ostringstream svg;
    write_sweep_svg(svg, r, o.plot_x == "peak" ? PlotMemory::Peak : PlotMemory::Saved);
    add_text_output(outputs, o.plot, std::move(svg).str());
  }
  std::ostringstream rows;
  if (o.csv) write_sweep_csv(rows, r);
  else if (o.json) write_sweep_json(rows, r);
  else write_sweep_text(rows, r);
  add_text_output(outputs, "-", std::move(rows).str());
  set_stage("writing the outputs");
  outputs.commit();
  return 0;
}

}  // namespace

Action add_sweep_command(CLI::App& sub) {
  auto o = std::make_shared<SweepOptions>();
  add_input_options(sub, o->input);
  sub.add_option("-k,--key", o->key, "The setting to sweep: any numeric or boolean key (see partition_tool --help)")
      ->required()
      ->type_name("KEY");
  sub.add_option("--values", o->values, "Comma-separated values, in order (true,false for a boolean key)")
      ->type_name("V1,V2,...");
  sub.add_option("--range", o->range, "Numeric values start, start+step, ... up to stop inclusive (memory_limit also in percent: 50%:90%:10%)")
      ->type_name("START:STOP:STEP");
  add_settings_options(sub, o->settings, "", "every row (the swept key overrides)");
  add_model_options(sub, o->model);
  auto* csv = sub.add_flag("--csv", o->csv, "Print the rows as CSV (exact numbers, one header line)");
  sub.add_flag("--json", o->json, "Print the rows as JSON (graph, key, device, rows[])")->excludes(csv);
  sub.add_option("--plot", o->plot,
                 "Also write the memory / recomputed-FLOPs Pareto curve as an SVG to FILE")
      ->type_name("FILE.svg");
  sub.add_option("--plot-x", o->plot_x,
                 "The plot's memory axis: saved (bytes saved for the backward, default) or peak (peak memory)")
      ->check(CLI::IsMember({"saved", "peak"}))
      ->type_name("saved|peak");
  sub.add_option("--plot-memory", o->plot_memory,
                 "Also write every value's memory timeline (live bytes over the step) on one SVG chart to FILE")
      ->type_name("FILE.svg");
  sub.add_option("-j,--jobs", o->jobs, "Rows solved in parallel (default 0: every hardware thread; output is the same)")
      ->type_name("N");
  sub.footer(
      "Partitions the graph once per value of one setting and prints one row per value:\n"
      "saved values and bytes, peak activation memory (as the report's memory.peak_bytes),\n"
      "recomputed ops and their FLOPs, forward traffic and the estimated step time on\n"
      "--device (CSV and JSON add backward traffic, per-pass times and where the peak\n"
      "is). A '*' marks the rows whose cut (the saved set) differs from the row before.\n"
      "The graph is parsed once and prepared once (except for the key cse, which changes\n"
      "preparation); rows run in parallel (--jobs).\n\n"
      "Examples:\n"
      "  partition_tool sweep --input sample_graphs/linear_ce.pb --key dist_from_bw_base \\\n"
      "      --range 1.0:1.5:0.05\n"
      "  partition_tool sweep -i graph.pb --key ban_recompute_reductions --values true,false --csv\n"
      "  partition_tool sweep -i graph.pb --key activation_memory_budget --range 0:1:0.05 \\\n"
      "      --plot budget.svg");
  return [o] { return run_sweep_command(*o); };
}

}  // namespace pt::app
