// partition_tool flow --input G [settings] --dimacs OUT: the exact flow
// network of the first min-cut solve, in DIMACS max-flow format
// (lib/partition/dimacs.h), so any max-flow solver can be compared with the
// partitioner's on the same network.
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/classify.h"
#include "partition/memory_budget.h"
#include "cli_common.h"
#include "run_stage.h"
#include "commands.h"
#include "graph/errors.h"
#include "graph/visible_text.h"
#include "partition/ban_options.h"
#include "partition/dimacs.h"
#include "partition/flow_network.h"
#include "prepare/prepare.h"

namespace pt::app {

namespace {

struct FlowOptions {
  std::string input;
  std::optional<std::string> input_format;
  std::string dimacs;
  std::string config_path;
  std::vector<std::string> set_assignments;
  ValidateOptions limits;
};

int run_flow(const FlowOptions& o) {
  if (o.input.empty()) throw InputError("no graph given: name it with --input PATH or as an argument");
  check_output_paths({o.input, o.config_path}, {{"--dimacs", o.dimacs}});
  Settings settings;
  if (!o.config_path.empty()) apply_settings_file(o.config_path, settings);
  for (const auto& a : o.set_assignments) settings.set_assignment(a);
  const Graph joint = load_graph(o.input, o.input_format, o.limits);
  const PrepareResult prepared = prepare(joint, settings);
  const Graph& g = prepared.graph;
  const Classification c = classify(g);
  if (!c.any_required_bw()) {
    throw InputError(o.input + ": nothing reads a tangent, so no min cut is solved (PyTorch's default partition)");
  }
  if (effective_budget(g, settings) == 0) {
    throw InputError(o.input + ": activation_memory_budget 0 saves only the inputs, so no min cut is solved");
  }
  // The first solve uses the settings' bans, with or without a memory budget.
  const FlowNetwork net = build_flow_network(g, c, settings, BanOptions::from_settings(settings));
  std::string comment = "flow network of the first min-cut solve of " + joint.header->name() + " (" + o.input +
                        "), settings:";
  const auto changed = settings.changed_keys();
  if (changed.empty()) comment += " PyTorch defaults";
  for (const auto& [key, value] : settings.to_map()) {
    for (const auto& k : changed) {
      if (k == key) comment += " " + key + "=" + value;
    }
  }
  std::ostringstream text;
  const DimacsCounts counts = write_dimacs(text, net, comment);
  OutputBatch outputs = output_batch();
  add_text_output(outputs, o.dimacs, std::move(text).str());
  set_stage("writing the outputs");
  outputs.commit();
  if (o.dimacs != "-" && !quiet()) {
    print_text("wrote " + visible_text(o.dimacs) + ": " + std::to_string(counts.vertices) + " vertices, " +
               std::to_string(counts.arcs) + " arcs\n");
  }
  return 0;
}

}  // namespace

Action add_flow_command(CLI::App& sub) {
  auto o = std::make_shared<FlowOptions>();
  sub.add_option("-i,--input", o->input, "Joint graph (.pb, .pbtxt or .json)")->type_name("PATH");
  sub.add_option("GRAPH", o->input, "The same as --input")->type_name("PATH");
  sub.add_option("--input-format", o->input_format, "Format of --input: pb, pbtxt or json (default: from its extension)")
      ->type_name("FORMAT");
  sub.add_option("--dimacs", o->dimacs, "DIMACS file to write ('-' for stdout)")->required()->type_name("PATH|-");
  sub.add_option("--set", o->set_assignments, "Set one partitioner setting, key=value (repeatable; after --config)")
      ->allow_extra_args(false)
      ->type_name("KEY=VALUE");
  sub.add_option("--config", o->config_path, "Settings file, as for the main command")->type_name("FILE");
  add_load_options(sub, o->limits);
  sub.footer(
      "Writes the network of the first min-cut solve (with a memory budget, the\n"
      "cascade's first solve) as networkx holds it: only vertices that carry an arc,\n"
      "numbered from 1, each distinct arc once, infinite capacity as 2^60 (a comment\n"
      "names the number). Node ids differ from PyTorch's, the network is the same.\n\n"
      "Examples:\n"
      "  partition_tool flow --input test/corpus/gpt2_124m.pb --dimacs gpt2.dimacs\n"
      "  partition_tool flow -i g.pb --set dist_from_bw_base=1.0 --dimacs - | head");
  return [o] { return run_flow(*o); };
}

}  // namespace pt::app
