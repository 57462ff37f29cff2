// Helpers shared by the subcommands: resolving file formats, loading and
// validating a graph. (Human-readable sizes are
// pt::human_bytes in graph/human_units.h, shared with the reports.)
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/graph_io.h"
#include "graph/output_batch.h"
#include "graph/validate.h"
#include "settings/settings.h"
#include "pipeline/pipeline.h"
#include "partition/settings_file.h"  // apply_settings_file (--config)

namespace CLI {
class App;
}

namespace pt::app {

// The format named by `override_name` ("pb", "pbtxt", "json") when given,
// else the one implied by the extension of `path`. Throws InputError.
Format resolve_format(const std::string& path, const std::optional<std::string>& override_name);

// Refuses, with one line naming the cause, what cannot be a joint graph
// before reading it: a directory, an empty file, an ONNX file.
void check_graph_file(const std::string& path);

// Reads `path` and validates it (`limits`: --max-nodes). Throws InputError
// with one line that starts with the path; a partition file (written by
// --output) is named as such.
Graph load_graph(const std::string& path, const std::optional<std::string>& format_name,
                 const ValidateOptions& limits = {});
// The same, with the stages' timings (pipeline.h).
LoadedGraph load_joint_graph(const std::string& path, Format format, const ValidateOptions& limits = {});

// Whether `path` parses as a partition (forward and backward graphs).
bool is_partition_file(const std::string& path, Format format);

// The graphs that --input names: each file as given, and for a directory
// its graph files (.pb, .pbtxt, .json; not its subdirectories) in name
// order. Throws InputError for a directory without any.
std::vector<std::string> expand_graph_inputs(const std::vector<std::string>& inputs);

// Declares --max-nodes N (limits.max_nodes) on a
// command that loads graphs.
void add_load_options(CLI::App& app, ValidateOptions& limits);

// One file a command will write, and the option that named it.
struct OutputPath {
  std::string option;  // "--output", "--report-json", "OUT"
  std::string path;    // "" (not asked for) is skipped; "-" is stdout
};
// Before any work, throws InputError with one line when an output
// - cannot be written (a directory, a missing directory, a block device);
// - would write over any input of the run (graphs, --config files, saved
//   reports), however spelled: symbolic and hard links, "./x" and "x";
// - is another output of the run, even through a dangling symbolic link;
//   or a second output sent to stdout ("-").
// Character devices are written in place, so two outputs may share one
// (/dev/null). Where an input does not exist it is compared by path.
void check_output_paths(const std::vector<std::string>& inputs, const std::vector<OutputPath>& outputs);

// An OutputBatch whose temporary files a signal removes (temporary_cleanup.h).
OutputBatch output_batch();
// Adds a text output (a report, rows, a page, a chart) with its control
// characters made visible (graph/visible_text.h), newlines kept: paths and
// setting values reach the text as given. Binary outputs go to add() as
// they are.
void add_text_output(OutputBatch& outputs, const std::string& path, std::string text);
// Text for stdout, its control characters made visible as add_text_output's.
void print_text(const std::string& text);

// True under -q: the one-line summary a command prints on success is left out.
bool quiet();

}  // namespace pt::app
