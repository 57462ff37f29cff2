// The main command (no subcommand): partition one joint graph, or several
// (repeated --input, or a directory of graphs) with one report over all.
//   partition_tool --input G... [--output P] [--report] [--report-json PATH|-]
//                  [--set key=value]... [--config FILE]
// Option parsing (add_main_options, resolve_main_options) is kept apart from
// the work (run_main_command), so the engine replaces only the latter.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/graph_io.h"
#include "graph/validate.h"
#include "settings/settings.h"
#include "partition_args.h"

namespace CLI {
class App;
}

namespace pt::app {

struct MainOptions {
  // As given on the command line.
  std::vector<std::string> inputs;      // -i/--input, in order
  std::vector<std::string> positional;  // GRAPH arguments
  std::optional<std::string> input_format_name;
  std::string output;  // empty: no partitioned graph is written
  std::optional<std::string> output_format_name;
  bool report = false;           // text report on stdout
  std::string report_json;       // empty: none; "-": stdout
  std::string report_md;         // empty: none; "-": stdout
  std::string report_html;       // empty: none
  std::string plot_memory;       // memory timeline SVG; empty: none
  size_t top = 15;               // rows per report list (0 = all)
  bool no_timings = false;       // leave the stage timings out of the JSON report
  ModelArgs model;               // --device, --bandwidth-option
  std::string config_path;       // settings file, applied before --set
  std::vector<std::string> set_assignments;  // "key=value", in order
  std::string memory_limit;                  // --memory-limit: memory_limit, applied after --set
  ValidateOptions limits;                    // --max-nodes

  // Filled by resolve_main_options.
  std::vector<std::string> graphs;      // every graph file, directories expanded
  std::optional<Format> output_format;  // set when output is
  Settings settings;
  Device device;
  BandwidthOptions bandwidth;
};

// Declares the main command's options on the root app.
void add_main_options(CLI::App& app, MainOptions& o);

// After parsing: lists the graphs, resolves the formats, refuses outputs
// that would write over an input or each other (check_output_paths),
// applies the settings file and then every --set in order. Throws InputError
// or SettingsError.
void resolve_main_options(MainOptions& o);

// Runs the main command; returns the exit code.
int run_main_command(const MainOptions& o);

}  // namespace pt::app
