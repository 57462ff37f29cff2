// partition_tool dot --input G [--around NODE --depth N]: the partition as
// a Graphviz graph.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "cli_common.h"
#include "partition_args.h"
#include "run_stage.h"
#include "pipeline/pipeline.h"
#include "report/dot.h"

namespace pt::app {

namespace {

struct DotOptions {
  InputArgs input;
  SettingsArgs settings;
  std::string around;
  int depth = 2;
  size_t max_drawn = 500;
};

int run_dot(const DotOptions& o) {
  const Settings settings = o.settings.resolve();
  const LoadedGraph loaded = o.input.load();
  set_stage("partitioning " + o.input.path());
  const Partitioned p = partition_joint(loaded.graph, settings);
  const DotSelection sel = select_dot_nodes(p.prepared.graph, o.around, o.depth, o.max_drawn);
  std::ostringstream dot;
  write_dot(dot, p.prepared.graph, p.result, sel);
  print_text(dot.str());
  return 0;
}

}  // namespace

Action add_dot_command(CLI::App& sub) {
  auto o = std::make_shared<DotOptions>();
  add_input_options(sub, o->input);
  add_settings_options(sub, o->settings);
  sub.add_option("--around", o->around, "Draw only the nodes near this one (after CSE: use a surviving name)")
      ->type_name("NODE");
  sub.add_option("--depth", o->depth, "With --around: how many edges away, in either direction (default 2)")
      ->check(CLI::Range(0, 1000))
      ->type_name("N");
  sub.add_option("--max-drawn", o->max_drawn, "Refuse to draw more nodes than this (default 500)")->type_name("N");
  sub.footer(
      "Prints the partitioned graph in Graphviz DOT on stdout: graph inputs as ellipses,\n"
      "saved values orange and bold, recomputed nodes blue and dashed, forward-only nodes\n"
      "grey, backward-only nodes violet, nodes whose recomputation is banned with a red\n"
      "border (and the ban in their label), and the cut -- each saved value's edges into\n"
      "the backward -- as thick red edges labelled with the bytes saved. A legend is\n"
      "included. Graphs over --max-drawn nodes are refused: draw a neighbourhood with\n"
      "--around NODE --depth N (nodes at its edge say how many edges are not shown).\n\n"
      "Examples:\n"
      "  partition_tool dot --input sample_graphs/linear_ce.pb | dot -Tsvg > linear_ce.svg\n"
      "  partition_tool dot -i model.pb --around mm_default_2 --depth 3 > around.dot");
  return [o] { return run_dot(*o); };
}

}  // namespace pt::app
