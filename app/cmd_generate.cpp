// partition_tool generate --layers N [--hidden H ...] -o OUT: write a
// synthetic transformer joint graph (lib/generate/transformer_graph.h), for
// benchmarks and scale tests. The graph is validated before it is written.
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "cli_common.h"
#include "run_stage.h"
#include "commands.h"
#include "generate/transformer_graph.h"
#include "graph/errors.h"
#include "graph/visible_text.h"
#include "graph/graph_io.h"
#include "graph/validate.h"

namespace pt::app {

namespace {

struct GenerateOptions {
  gen::TransformerSpec spec;
  std::string out;
  std::optional<std::string> output_format;
};

int run_generate(const GenerateOptions& o) {
  check_output_paths({}, {{"--output", o.out}});
  const Format format = o.out == "-" ? parse_format(o.output_format.value_or("pb"))
                                     : resolve_format(o.out, o.output_format);
  std::shared_ptr<proto::Graph> message;
  try {
    message = gen::transformer_graph(o.spec);
  } catch (const std::invalid_argument& e) {
    throw InputError(e.what());
  }
  const std::string name = message->name();
  const NodeId nodes = validate(message, o.out).size();
  OutputBatch outputs = output_batch();
  outputs.add(o.out, serialize_message(*message, format));
  set_stage("writing " + o.out);
  outputs.commit();
  if (o.out == "-" || quiet()) return 0;
  print_text("wrote " + visible_text(o.out) + ": " + name + ", " + std::to_string(nodes) + " nodes, " +
             std::to_string(o.spec.layers) + " layers\n");
  return 0;
}

}  // namespace

Action add_generate_command(CLI::App& sub) {
  auto o = std::make_shared<GenerateOptions>();
  gen::TransformerSpec& s = o->spec;
  sub.add_option("--layers", s.layers, "Transformer blocks (about 220 nodes each)")->required()->type_name("N");
  sub.add_option("--hidden", s.hidden, "Model width (default 768)")->type_name("H");
  sub.add_option("--seq", s.seq, "Sequence length (default 1024)")->type_name("T");
  sub.add_option("--batch", s.batch, "Batch size (default 4)")->type_name("B");
  sub.add_option("--heads", s.heads, "Attention heads; must divide --hidden (default 12)")->type_name("A");
  sub.add_option("--vocab", s.vocab, "Vocabulary size (default 50257)")->type_name("V");
  sub.add_option("--dtype", s.dtype, "Parameter and activation dtype: bfloat16, float16 or float32 (default bfloat16)")
      ->type_name("D");
  sub.add_flag("--checkpoint", s.checkpoint,
               "Selective activation checkpointing: each block's forward ops PREFER_RECOMPUTE (ac_graph_id = "
               "block + 1), its matmuls MUST_SAVE");
  sub.add_option("-o,--output", o->out, "Graph file to write (.pb, .pbtxt or .json; '-': stdout)")->required()->type_name("PATH");
  sub.add_option("--output-format", o->output_format, "Format of --output: pb, pbtxt or json (default: from its extension)")
      ->type_name("FORMAT");
  sub.footer(
      "The graph is a GPT-style joint forward+backward graph as AOTAutograd hands it to\n"
      "the partitioner: embeddings, pre-norm blocks (layer norm, attention with explicit\n"
      "matmuls and a float32 softmax, GELU MLP), tied LM head, cross-entropy loss, and\n"
      "the backward. The same options always write the same bytes.\n\n"
      "Examples:\n"
      "  partition_tool generate --layers 12 -o gpt2_like.pb\n"
      "  partition_tool generate --layers 4500 --hidden 256 --heads 4 --seq 128 -o big.pb\n"
      "  partition_tool generate --layers 4 --checkpoint -o sac.pb");
  return [o] { return run_generate(*o); };
}

}  // namespace pt::app
