// partition_tool convert IN OUT: re-encode a graph (pb <-> pbtxt <-> json),
// validating it first so that a converted file is always a valid graph.
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "cli_common.h"
#include "run_stage.h"
#include "commands.h"
#include "graph/errors.h"

namespace pt::app {

namespace {

struct ConvertOptions {
  std::string in;
  std::string out;
  std::optional<std::string> input_format;
  std::optional<std::string> output_format;
  ValidateOptions limits;
};

int run_convert(const ConvertOptions& o) {
  if (o.in.empty()) throw InputError("no graph given: name it as IN or with --input PATH");
  if (o.out.empty()) throw InputError("no output given: name it as OUT or with --output PATH ('-': stdout)");
  const bool to_stdout = o.out == "-";
  check_output_paths({o.in}, {{"OUT", o.out}});
  // Resolve both formats before reading, so a bad OUT name fails fast.
  const Format out_format = to_stdout ? parse_format(o.output_format.value_or("json"))
                                      : resolve_format(o.out, o.output_format);
  const Graph g = load_graph(o.in, o.input_format, o.limits);
  const auto message = graph_message(g);
  OutputBatch outputs = output_batch();
  outputs.add(o.out, serialize_message(*message, out_format));
  set_stage("writing " + o.out);
  outputs.commit();
  if (!to_stdout) spdlog::info("wrote {} ({}, {} nodes)", o.out, format_name(out_format), g.size());
  return 0;
}

}  // namespace

Action add_convert_command(CLI::App& sub) {
  auto o = std::make_shared<ConvertOptions>();
  sub.add_option("IN", o->in, "Graph file to read (.pb, .pbtxt or .json)")->type_name("PATH");
  sub.add_option("OUT", o->out, "File to write; '-' writes to stdout (JSON unless --output-format)")
      ->type_name("PATH|-");
  sub.add_option("-i,--input", o->in, "The same as IN")->type_name("PATH");
  sub.add_option("-o,--output", o->out, "The same as OUT")->type_name("PATH|-");
  sub.add_option("--input-format", o->input_format, "Format of IN: pb, pbtxt or json (default: from its extension)")
      ->type_name("FORMAT");
  sub.add_option("--output-format", o->output_format,
                 "Format of OUT: pb, pbtxt or json (default: from its extension)")
      ->type_name("FORMAT");
  add_load_options(sub, o->limits);
  sub.footer(
      "IN is read and validated first; nothing is written unless it is a valid graph.\n"
      "OUT is written atomically (a temporary file renamed into place) and must not\n"
      "be IN itself. JSON output is the protobuf JSON mapping with snake_case names\n"
      "(64-bit integers such as shapes are written as strings, which every reader\n"
      "accepts).\n\n"
      "Examples:\n"
      "  partition_tool convert graph.json graph.pb\n"
      "  partition_tool convert sample_graphs/tiny_mlp.pbtxt - --output-format json");
  return [o] { return run_convert(*o); };
}

}  // namespace pt::app
