// partition_tool sweep --input G --key K --values ... | --range a:b:step:
// one row per value of one setting.
#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "graph/errors.h"
#include "partition_args.h"
#include "pipeline/pipeline.h"
#include "report/setting_values.h"
#include "report/sweep.h"

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
};

int run_sweep_command(const SweepOptions& o) {
  if (o.values.empty() == o.range.empty()) throw SettingsError("sweep: give exactly one of --values and --range");
  const Settings base = o.settings.resolve();
  const SettingValue kind = typed_setting(base, o.key);
  if (!o.range.empty() && kind.kind != SettingValue::Kind::Number) {
    throw SettingsError("sweep: --range needs a numeric key; " + o.key + " takes --values");
  }
  const auto values = o.range.empty() ? sweep_values_from_list(o.values) : sweep_values_from_range(o.range);
  const LoadedGraph loaded = o.input.load();
  const SweepResult r =
      run_sweep(loaded.graph, base, o.key, values, o.model.resolve_device(), o.model.resolve_options());
  if (o.csv) write_sweep_csv(std::cout, r);
  else if (o.json) write_sweep_json(std::cout, r);
  else write_sweep_text(std::cout, r);
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
  sub.add_option("--range", o->range, "Numeric values start, start+step, ... up to stop inclusive")
      ->type_name("START:STOP:STEP");
  add_settings_options(sub, o->settings, "", "every row (the swept key overrides)");
  add_model_options(sub, o->model);
  auto* csv = sub.add_flag("--csv", o->csv, "Print the rows as CSV (exact numbers, one header line)");
  sub.add_flag("--json", o->json, "Print the rows as JSON (graph, key, device, rows[])")->excludes(csv);
  sub.footer(
      "Partitions the graph once per value of one setting and prints one row per value:\n"
      "saved values and bytes, recomputed ops, and the bandwidth model's forward and\n"
      "backward traffic and time on --device. A '*' marks the rows whose cut (the saved\n"
      "set) differs from the row before. The graph is parsed once and prepared once\n"
      "(except for the key cse, which changes preparation).\n\n"
      "Examples:\n"
      "  partition_tool sweep --input sample_graphs/linear_ce.pb --key dist_from_bw_base \\\n"
      "      --range 1.0:1.5:0.05\n"
      "  partition_tool sweep -i graph.pb --key ban_recompute_reductions --values true,false --csv");
  return [o] { return run_sweep_command(*o); };
}

}  // namespace pt::app
