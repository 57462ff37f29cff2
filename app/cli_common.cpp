#include "cli_common.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <CLI/CLI.hpp>

#include "graph/errors.h"
#include "graph/validate.h"

namespace pt::app {

Format resolve_format(const std::string& path, const std::optional<std::string>& override_name) {
  return override_name ? parse_format(*override_name) : format_from_path(path);
}

Graph load_graph(const std::string& path, const std::optional<std::string>& format_name,
                 const ValidateOptions& limits) {
  const Format format = resolve_format(path, format_name);
  return validate(read_graph(path, format), path, limits);
}

void add_load_options(CLI::App& app, ValidateOptions& limits) {
  app.add_option("--max-nodes", limits.max_nodes,
                 "Reject graphs with more nodes than this (default " + std::to_string(limits.max_nodes) + ")")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
}

namespace {

bool same_path(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
  // absolute() first: weakly_canonical leaves a relative path relative when
  // none of it exists yet.
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ec && ca == cb;
}

}  // namespace

void check_output_paths(const std::string& input, const std::vector<OutputPath>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputPath& o = outputs[i];
    if (o.path.empty() || o.path == "-") continue;
    if (same_path(input, o.path)) {
      throw InputError(o.path + ": refusing to write over the input file " + input + " (" + o.option +
                       " must name another file)");
    }
    for (size_t k = 0; k < i; ++k) {
      if (outputs[k].path.empty() || outputs[k].path == "-") continue;
      if (same_path(outputs[k].path, o.path)) {
        throw InputError(o.path + ": named by both " + outputs[k].option + " and " + o.option +
                         " (each output needs its own file)");
      }
    }
  }
}

}  // namespace pt::app
