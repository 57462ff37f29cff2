// partition_tool explain --input G --node NAME: why one node is saved,
// recomputed, banned, forward-only or backward-only.
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
#include "graph/human_units.h"
#include "plan/apply_memory_limit.h"
#include "report/explain.h"

namespace pt::app {

namespace {

struct ExplainOptions {
  InputArgs input;
  std::string node;
  SettingsArgs settings;
  ModelArgs model;
  bool json = false;
};

int run_explain(const ExplainOptions& o) {
  const Settings settings = o.settings.resolve();
  const Device device = o.model.resolve_device();
  const BandwidthOptions bandwidth = o.model.resolve_options();
  const LoadedGraph loaded = o.input.load();
  set_stage("partitioning " + o.input.path());
  Partitioned p = partition_joint(loaded.graph, settings);
  // Under memory_limit the node is explained in the plan the main command
  // would write, as the report's explanations are.
  set_stage("planning " + o.input.path() + " under the memory limit");
  const LimitedPlan limited = apply_memory_limit(p, settings, device, bandwidth);
  Explanation x = explain_node(loaded.graph, p, limited.settings, o.node);
  if (limited.plan) {
    const MemoryPlan& plan = *limited.plan;
    x.facts.insert(x.facts.begin(),
                   {"plan", "memory_limit " + limit_text(plan.limit, plan.limit_fraction, plan.default_peak) + ": " +
                                plan.chosen.description() + " (" + family_name(plan.chosen.family) +
                                ", predicted on " + device.name + ")"});
  }
  std::ostringstream text;
  if (o.json) write_explanation_json(text, x);
  else write_explanation_text(text, x);
  print_text(text.str());
  return 0;
}

}  // namespace

Action add_explain_command(CLI::App& sub) {
  auto o = std::make_shared<ExplainOptions>();
  add_input_options(sub, o->input);
  sub.add_option("-n,--node", o->node, "The node to explain (its name in the joint graph)")
      ->required()
      ->type_name("NAME");
  add_settings_options(sub, o->settings);
  add_model_options(sub, o->model);
  sub.add_flag("--json", o->json, "Print the explanation as JSON (node, status, summary, facts[])");
  sub.footer(
      "Partitions the graph under the given settings, then explains one node as a chain\n"
      "of facts: its status (saved, recomputed, forward-only, backward-only, or removed\n"
      "or merged before partitioning), where it runs, the ban on recomputing it with the\n"
      "rule's numbers and the setting that lifts it, the capacity of its X_in -> X_out\n"
      "edge (what saving it costs: size x dist_from_bw_base^distance), its distance from\n"
      "the backward, and the path to the backward node that reads it. With memory_limit\n"
      "set, the node is explained in the plan the main command would choose (--device\n"
      "is the model that predicts the plans).\n\n"
      "Examples:\n"
      "  partition_tool explain --input sample_graphs/linear_ce.pb --node amax\n"
      "  partition_tool explain -i sample_graphs/linear_ce.pb -n convert_element_type_3 \\\n"
      "      --set dist_from_bw_base=1.2");
  return [o] { return run_explain(*o); };
}

}  // namespace pt::app
