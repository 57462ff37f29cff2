// partition_tool inspect GRAPH: what is in a joint graph, before partitioning.
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_common.h"
#include "commands.h"
#include "graph/errors.h"
#include "graph/printable.h"
#include "graph_summary.h"
#include "report/json_writer.h"

namespace pt::app {

namespace {

struct InspectOptions {
  std::string graph;
  std::optional<std::string> input_format;
  bool json = false;
  int top = 10;
  ValidateOptions limits;
};

// A partition file (--output) in brief: its two graphs and what it saves.
void print_partition(std::ostream& out, const proto::Partition& p, const std::string& path, bool json) {
  if (json) {
    JsonWriter w(out);
    w.begin_object();
    w.field("schema_version", kJsonSchemaVersion);
    w.field("kind", "partition");
    w.field("file", path);
    w.field("source", p.source());
    w.field("forward_nodes", static_cast<int64_t>(p.forward().nodes_size()));
    w.field("backward_nodes", static_cast<int64_t>(p.backward().nodes_size()));
    w.field("saved_values", static_cast<int64_t>(p.saved_values_size()));
    w.field("saved_sym_nodes", static_cast<int64_t>(p.saved_sym_nodes_size()));
    w.field("recomputed", static_cast<int64_t>(p.recomputed_size()));
    w.end_object();
    out << "\n";
    return;
  }
  out << "partition of '" << printable(p.source()) << "' from " << printable(path) << "\n"
      << "forward graph: " << p.forward().nodes_size() << " nodes\n"
      << "backward graph: " << p.backward().nodes_size() << " nodes\n"
      << "saved: " << p.saved_values_size() << " values, " << p.saved_sym_nodes_size() << " symbols\n"
      << "recomputed in the backward: " << p.recomputed_size() << " ops\n";
}

int run_inspect(const InspectOptions& o) {
  if (o.graph.empty()) throw InputError("no graph given: name it as GRAPH or with --input PATH");
  check_graph_file(o.graph);
  const Format file_format = resolve_format(o.graph, o.input_format);
  if (is_partition_file(o.graph, file_format)) {
    proto::Partition partition;
    read_message(o.graph, file_format, &partition);
    std::ostringstream text;
    print_partition(text, partition, o.graph, o.json);
    print_text(text.str());
    return 0;
  }
  const Graph g = load_graph(o.graph, o.input_format, o.limits);
  const std::string format(format_name(file_format));
  const GraphSummary s = summarize(g, format, static_cast<size_t>(o.top));
  std::ostringstream text;
  if (o.json) print_summary_json(text, s);
  else print_summary_text(text, s);
  print_text(text.str());
  return 0;
}

}  // namespace

Action add_inspect_command(CLI::App& sub) {
  auto o = std::make_shared<InspectOptions>();
  sub.add_option("GRAPH", o->graph, "Joint graph or partition file (.pb, .pbtxt or .json)")->type_name("PATH");
  sub.add_option("-i,--input", o->graph, "The same as GRAPH")->type_name("PATH");
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
      "result. Exits 2 when the file does not parse or validate. A partition file\n"
      "(written by --output) is summarized too: its two graphs and what it saves.\n\n"
      "Examples:\n"
      "  partition_tool inspect sample_graphs/linear_ce.pb\n"
      "  partition_tool inspect graph.json --top 0 --json > summary.json");
  return [o] { return run_inspect(*o); };
}

}  // namespace pt::app
