// Option parsing of the main command (see cmd_partition.h).

#include <CLI/CLI.hpp>

#include "cli_common.h"
#include "cmd_partition.h"
#include "commands.h"
#include "graph/errors.h"
#include "graph/nearest_name.h"

namespace pt::app {

namespace {

std::string valid_keys_text() {
  std::string out;
  for (const auto& k : Settings::valid_keys()) out += "  " + k + "\n";
  return out;
}

}  // namespace

std::string mistyped_command(int argc, char** argv, std::span<const Command> commands) {
  if (argc < 2) return "";
  const std::string first = argv[1];
  if (first.empty() || first[0] == '-' || first.find_first_of("./") != std::string::npos) return "";
  NearestName nearest(first);
  for (const Command& c : commands) {
    if (c.name == first) return "";
    nearest.consider(c.name);
  }
  if (nearest.best().empty()) return "";
  return "unknown command '" + first + "'" + did_you_mean(nearest.best());
}

void add_main_options(CLI::App& app, MainOptions& o) {
  app.add_option("-i,--input", o.inputs,
                 "Joint graph to partition (.pb, .pbtxt or .json), or a directory of them; repeatable: one report "
                 "over all")
      ->allow_extra_args(false)
      ->type_name("PATH");
  app.add_option("GRAPH", o.positional, "The same as --input")->type_name("PATH");
  app.add_option("--input-format", o.input_format_name,
                 "Format of --input: pb, pbtxt or json (default: from its extension)")
      ->type_name("FORMAT");
  app.add_option("-o,--output", o.output,
                 "Write the partition (forward graph, backward graph, saved values) to this file ('-' for stdout)")
      ->type_name("PATH|-");
  app.add_option("--output-format", o.output_format_name,
                 "Format of --output: pb, pbtxt or json (default: from its extension)")
      ->type_name("FORMAT");
  app.add_flag("--report", o.report, "Print the human-readable report on stdout");
  app.add_option("--report-json", o.report_json, "Write the report as JSON to PATH ('-' for stdout)")
      ->type_name("PATH|-");
  app.add_option("--report-md", o.report_md, "Write the report as Markdown to PATH ('-' for stdout), for CI comments")
      ->type_name("PATH|-");
  app.add_option("--report-html", o.report_html,
                 "Write the report as one self-contained HTML page (timeline, sortable tables, explain) to PATH")
      ->type_name("PATH");
  app.add_option("--plot-memory", o.plot_memory,
                 "Write the memory timeline (live bytes over the forward and backward) as an SVG to PATH")
      ->type_name("PATH.svg");
  app.add_flag("--no-timings", o.no_timings,
               "Leave the stage timings out of the JSON report (two runs' reports then compare byte for byte)");
  app.add_option("--top", o.top, "Rows per list in the text and Markdown reports; 0 shows all (default 15)")
      ->type_name("N");
  add_model_options(app, o.model);
  app.add_option("--set", o.set_assignments,
                 "Set one partitioner setting, key=value (repeatable; applied after --config)")
      ->allow_extra_args(false)
      ->type_name("KEY=VALUE");
  app.add_option("--config", o.config_path,
                 "Settings file (TOML): 'key = value' lines, keys as for --set, op-class edits as lists")
      ->type_name("FILE");
  app.add_option("--memory-limit", o.memory_limit,
                 "Shorthand for --set memory_limit=SIZE: the fastest predicted plan whose simulated peak fits "
                 "SIZE (bytes, or 3.5GB, 3GiB, or 60% of the default plan's peak)")
      ->type_name("SIZE");
  add_load_options(app, o.limits);
  app.footer(
      "Subcommands have their own --help (partition_tool inspect --help).\n\n"
      "Settings keys (--set key=value, or 'key = value' lines in a TOML --config FILE):\n" +
      valid_keys_text() +
      "Op-class keys take comma-separated ops, as packets or targets: --set recomputable_ops.add=aten.mm\n"
      "(aten.mm.default is aten.mm). In a --config file: recomputable_ops.add = [\"aten.mm\"].\n\n"
      "Exit codes: 0 ok; 2 bad input, settings or command line; 3 infeasible (no\n"
      "finite cut, or no plan fits --memory-limit); 4 internal error.\n\n"
      "Examples:\n"
      "  partition_tool --input sample_graphs/linear_ce.pb --report\n"
      "  partition_tool --input g.json --output p.pb --set dist_from_bw_base=1.2 --report-json -\n"
      "  partition_tool --input g.pb --report --device a100 --top 0 --report-md report.md\n"
      "  partition_tool --input graphs/ --report-json ci.json --no-timings   (one report over every graph)");
}

void resolve_main_options(MainOptions& o) {
  std::vector<std::string> given = o.inputs;
  given.insert(given.end(), o.positional.begin(), o.positional.end());
  o.graphs = expand_graph_inputs(given);
  for (const std::string& g : o.graphs) {
    check_graph_file(g);
    resolve_format(g, o.input_format_name);
  }
  if (!o.output.empty()) {
    if (o.graphs.size() > 1) {
      throw InputError("--output writes one partition, and " + std::to_string(o.graphs.size()) +
                       " graphs are given: partition them one by one, or leave --output out");
    }
    o.output_format = o.output == "-" ? parse_format(o.output_format_name.value_or("pb"))
                                      : resolve_format(o.output, o.output_format_name);
  } else if (o.output_format_name) {
    throw InputError("--output-format is given but --output is not");
  }
  if (!o.report_html.empty() && o.graphs.size() > 1) {
    throw InputError("--report-html writes one graph's page, and " + std::to_string(o.graphs.size()) +
                     " graphs are given: write them one by one, or leave --report-html out");
  }
  std::vector<std::string> inputs = o.graphs;
  inputs.push_back(o.config_path);
  check_output_paths(inputs, {{"--report", o.report ? "-" : ""},
                              {"--output", o.output},
                              {"--report-json", o.report_json},
                              {"--report-md", o.report_md},
                              {"--report-html", o.report_html},
                              {"--plot-memory", o.plot_memory}});
  if (!o.config_path.empty()) apply_settings_file(o.config_path, o.settings);
  for (const auto& a : o.set_assignments) o.settings.set_assignment(a);
  if (!o.memory_limit.empty()) o.settings.set("memory_limit", o.memory_limit);
  o.device = o.model.resolve_device();
  o.bandwidth = o.model.resolve_options();
}

}  // namespace pt::app
