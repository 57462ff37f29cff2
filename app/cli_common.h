// Helpers shared by the subcommands: resolving file formats, loading and
// validating a graph. (Human-readable sizes are
// pt::human_bytes in report/human_units.h, shared with the reports.)
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/graph_io.h"
#include "graph/validate.h"
#include "partition/settings.h"
#include "partition/settings_file.h"  // apply_settings_file (--config)

namespace CLI {
class App;
}

namespace pt::app {

// The format named by `override_name` ("pb", "pbtxt", "json") when given,
// else the one implied by the extension of `path`. Throws InputError.
Format resolve_format(const std::string& path, const std::optional<std::string>& override_name);

// Reads `path` and validates it (`limits`: --max-nodes). Throws InputError
// with one line that starts with the path.
Graph load_graph(const std::string& path, const std::optional<std::string>& format_name,
                 const ValidateOptions& limits = {});

// Declares --max-nodes N (limits.max_nodes) on a
// command that loads graphs.
void add_load_options(CLI::App& app, ValidateOptions& limits);

// One file a command will write, and the option that named it.
struct OutputPath {
  std::string option;  // "--output", "--report-json", "OUT"
  std::string path;    // "" (not asked for) and "-" (stdout) are skipped
};
// Throws InputError when an output would overwrite the input file or
// another output of the same run (compared as files when they exist, else
// as normalized paths).
void check_output_paths(const std::string& input, const std::vector<OutputPath>& outputs);

}  // namespace pt::app
