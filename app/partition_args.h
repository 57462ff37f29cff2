// Options shared by the commands that partition a graph and report on it
// (the main command, explain, diff, sweep, dot): the settings (--set,
// --config) and the bandwidth model's device and options.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/validate.h"
#include "pipeline/pipeline.h"

#include "settings/settings.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

namespace CLI {
class App;
}

namespace pt::app {

struct InputArgs {
  std::vector<std::string> named;       // -i/--input, in order
  std::vector<std::string> positional;  // GRAPH arguments
  std::optional<std::string> format;    // pb, pbtxt, json; default from the extension
  ValidateOptions limits;               // --max-nodes (where the command has it)

  // Every graph given, -i first (directories not expanded).
  std::vector<std::string> all() const;
  // The one graph of a command that reads one; throws InputError when
  // none or several are given.
  std::string path() const;
  // Parses and validates `path` (default: path()). Throws InputError
  // naming the file.
  LoadedGraph load() const { return load(path()); }
  LoadedGraph load(const std::string& file) const;
};

struct SettingsArgs {
  std::string config_path;                   // applied first
  std::vector<std::string> set_assignments;  // then each key=value, in order

  // Throws SettingsError naming the file and line, or the key.
  Settings resolve() const;
};

struct ModelArgs {
  std::string device = "h100";
  std::vector<std::string> options;  // bandwidth model key=value

  Device resolve_device() const;                // throws SettingsError
  BandwidthOptions resolve_options() const;     // throws SettingsError
};

// The graph as -i,--input PATH or a positional GRAPH (`several`: both
// repeatable, directories allowed), --input-format FORMAT, and with
// `node_limit` the loader's --max-nodes N.
void add_input_options(CLI::App& app, InputArgs& a, bool several = false, bool node_limit = true);
// --set KEY=VALUE (repeatable) and --config FILE, with `suffix` appended to
// both names (diff's "-a" and "-b").
void add_settings_options(CLI::App& app, SettingsArgs& a, const std::string& suffix = "",
                          const std::string& what = "");
// --device NAME|B/s and --bandwidth-option KEY=VALUE.
void add_model_options(CLI::App& app, ModelArgs& a);

}  // namespace pt::app
