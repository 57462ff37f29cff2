#include "cli_common.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "graph/errors.h"
#include "graph/output_target.h"
#include "graph/validate.h"
#include "graph/visible_text.h"
#include "run_stage.h"
#include "temporary_cleanup.h"

namespace pt::app {

Format resolve_format(const std::string& path, const std::optional<std::string>& override_name) {
  return override_name ? parse_format(*override_name) : format_from_path(path);
}

void check_graph_file(const std::string& path) {
  namespace fs = std::filesystem;
  if (fs::path(path).extension() == ".onnx") {
    throw InputError(path + ": ONNX files are not read; export the joint graph with the Python bridge "
                            "(python/, capture())");
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // the reader names the cause
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory; give a graph file (.pb, .pbtxt or .json)");
  if (S_ISREG(st.st_mode) && st.st_size == 0) {
    throw InputError(path + ": the file is empty; expected a joint graph (.pb, .pbtxt or .json)");
  }
}

bool is_partition_file(const std::string& path, Format format) {
  proto::Partition partition;
  try {
    read_message(path, format, &partition);
  } catch (const InputError&) {
    return false;
  }
  return partition.forward().nodes_size() > 0 && partition.backward().nodes_size() > 0;
}

namespace {

// A graph that does not load may be a partition given by mistake: say so.
template <typename Load>
auto load_or_explain(const std::string& path, Format format, Load load) {
  check_graph_file(path);
  set_stage("reading " + path);
  try {
    return load();
  } catch (const InputError&) {
    if (is_partition_file(path, format)) {
      throw InputError(path + ": a partition file (written by --output), not a joint graph; "
                              "partition_tool inspect reads it");
    }
    throw;
  }
}

}  // namespace

Graph load_graph(const std::string& path, const std::optional<std::string>& format_name,
                 const ValidateOptions& limits) {
  check_graph_file(path);
  const Format format = resolve_format(path, format_name);
  return load_or_explain(path, format, [&] { return validate(read_graph_records(path, format), path, limits); });
}

LoadedGraph load_joint_graph(const std::string& path, Format format, const ValidateOptions& limits) {
  return load_or_explain(path, format, [&] { return load_graph_file(path, format, limits); });
}

std::vector<std::string> expand_graph_inputs(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (!fs::is_directory(input, ec)) {
      out.push_back(input);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(input, ec)) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file(ec) && (ext == ".pb" || ext == ".pbtxt" || ext == ".json")) {
        found.push_back(entry.path().string());
      }
    }
    if (ec) throw InputError(input + ": cannot list the directory: " + ec.message());
    if (found.empty()) throw InputError(input + ": a directory without graph files (.pb, .pbtxt, .json)");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

void add_text_output(OutputBatch& outputs, const std::string& path, std::string text) {
  make_visible(text, Newlines::Keep);
  outputs.add(path, std::move(text));
}

void print_text(const std::string& text) { std::cout << visible_text(text, Newlines::Keep); }

OutputBatch output_batch() { return OutputBatch(temporary_cleanup()); }

bool quiet() { return !spdlog::default_logger()->should_log(spdlog::level::warn); }

void add_load_options(CLI::App& app, ValidateOptions& limits) {
  app.add_option("--max-nodes", limits.max_nodes,
                 "Reject graphs with more nodes than this (default " + std::to_string(limits.max_nodes) + ")")
      ->check(CLI::PositiveNumber)
      ->type_name("N");
}

void check_output_paths(const std::vector<std::string>& inputs, const std::vector<OutputPath>& outputs) {
  std::vector<std::pair<const OutputPath*, FileIdentity>> seen;
  for (const OutputPath& o : outputs) {
    if (o.path.empty()) continue;
    const OutputTarget target = resolve_output(o.path);
    const FileIdentity id = identify_output(target);
    for (const std::string& input : inputs) {
      if (!input.empty() && same_file(identify_input(input), id)) {
        throw InputError(o.path + ": refusing to write over the input file " + input + " (" + o.option +
                         " must name another file)");
      }
    }
    for (const auto& [other, other_id] : seen) {
      const bool both_stdout = o.path == "-" && other->path == "-";
      if (both_stdout) {
        throw InputError(other->option + " and " + o.option +
                         " both write to stdout ('-'); send one of them to a file");
      }
      if (!(id.character_device && other_id.character_device) && same_file(id, other_id)) {
        throw InputError(o.path + ": named by both " + other->option + " and " + o.option +
                         " (each output needs its own file)");
      }
    }
    seen.emplace_back(&o, id);
  }
}

}  // namespace pt::app
