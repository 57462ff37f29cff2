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

namespace {

std::string strip(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Drops a `# comment` that is not inside a quoted string.
std::string without_comment(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return line.substr(0, i);
    }
  }
  return line;
}

}  // namespace

void apply_settings_file(const std::string& path, Settings& settings) {
  std::ifstream in(path);
  if (!in) throw SettingsError(path + ": cannot open settings file: " + std::strerror(errno));
  std::string line;
  std::string section;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = path + ":" + std::to_string(number) + ": ";
    const std::string text = strip(without_comment(line));
    if (text.empty()) continue;
    if (text.front() == '[') {
      if (text.back() != ']' || text.size() < 3) throw SettingsError(where + "malformed section header '" + text + "'");
      section = strip(text.substr(1, text.size() - 2)) + ".";
      continue;
    }
    const auto eq = text.find('=');
    if (eq == std::string::npos) throw SettingsError(where + "expected key = value, got '" + text + "'");
    try {
      settings.set(section + strip(text.substr(0, eq)), strip(text.substr(eq + 1)));
    } catch (const SettingsError& e) {
      throw SettingsError(where + e.what());
    }
  }
  if (in.bad()) throw SettingsError(path + ": read error");
}

}  // namespace pt::app
