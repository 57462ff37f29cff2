// partition_tool inspect GRAPH: what is in a joint graph, before partitioning.
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_common.h"
#include "commands.h"
#include "graph_summary.h"

namespace pt::app {

namespace {

struct InspectOptions {
  std::string graph;
  std::optional<std::string> input_format;
  bool json = false;
  int top = 10;
  ValidateOptions limits;
};

int run_inspect(const InspectOptions& o) {
  const Graph g = load_graph(o.graph, o.input_format, o.limits);
  const std::string format(format_name(resolve_format(o.graph, o.input_format)));
  const GraphSummary s = summarize(g, format, static_cast<size_t>(o.top));
  if (o.json) print_summary_json(std::cout, s);
  else print_summary_text(std::cout, s);
  return 0;
}

}  // namespace

Action add_inspect_command(CLI::App& sub) {
  auto o = std::make_shared<InspectOptions>();
  sub.add_option("GRAPH", o->graph, "Joint graph file (.pb, .pbtxt or .json)")->required()->type_name("PATH");
  sub.add_option("--input-format", o->input_format,
                 "Format of GRAPH: pb, pbtxt or json (default: from the file extension)")
      ->type_name("FORMAT");
  sub.add_flag("--json", o->json, "Print the summary as JSON on stdout instead of text");
  sub.add_option("--top", o->top, "Rows in the op-packet and largest-tensor lists; 0 lists all (default 10)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()))
      ->type_name("N");
  add_load_options(sub, o->limits);
  sub.footer(
      "Prints node counts by op kind, by target packet and by partitioner_tag (the\n"
      "forward/backward split), inputs by kind (primals, parameters, tangents, RNG\n"
      "seeds), outputs, total tensor bytes, the largest tensors and the validation\n"
      "result. Exits 2 when the file does not parse or validate.\n\n"
      "Examples:\n"
      "  partition_tool inspect sample_graphs/linear_ce.pb\n"
      "  partition_tool inspect graph.json --top 0 --json > summary.json");
  return [o] { return run_inspect(*o); };
}

}  // namespace pt::app
