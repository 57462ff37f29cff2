#include "partition_args.h"

#include <CLI/CLI.hpp>

#include "cli_common.h"
#include "graph/errors.h"

namespace pt::app {

std::vector<std::string> InputArgs::all() const {
  std::vector<std::string> out = named;
  out.insert(out.end(), positional.begin(), positional.end());
  return out;
}

std::string InputArgs::path() const {
  const std::vector<std::string> given = all();
  if (given.empty()) throw InputError("no graph given: name it with --input PATH or as an argument");
  if (given.size() > 1) throw InputError("this command reads one graph; " + std::to_string(given.size()) + " given");
  return given.front();
}

LoadedGraph InputArgs::load(const std::string& file) const {
  check_graph_file(file);
  return load_joint_graph(file, resolve_format(file, format), limits);
}

Settings SettingsArgs::resolve() const {
  Settings s;
  if (!config_path.empty()) apply_settings_file(config_path, s);
  for (const auto& a : set_assignments) s.set_assignment(a);
  return s;
}

Device ModelArgs::resolve_device() const { return parse_device(device); }

BandwidthOptions ModelArgs::resolve_options() const {
  BandwidthOptions o;
  for (const auto& a : options) set_bandwidth_assignment(o, a);
  return o;
}

void add_input_options(CLI::App& app, InputArgs& a, bool several, bool node_limit) {
  const std::string what = several ? "Joint graph (.pb, .pbtxt or .json), or a directory of them (repeatable)"
                                   : "Joint graph (.pb, .pbtxt or .json)";
  app.add_option("-i,--input", a.named, what)->allow_extra_args(false)->type_name("PATH");
  app.add_option("GRAPH", a.positional, "The same as --input")->type_name("PATH");
  app.add_option("--input-format", a.format, "Format of --input: pb, pbtxt or json (default: from its extension)")
      ->type_name("FORMAT");
  if (node_limit) add_load_options(app, a.limits);
}

void add_settings_options(CLI::App& app, SettingsArgs& a, const std::string& suffix, const std::string& what) {
  const std::string of = what.empty() ? "" : " of " + what;
  app.add_option("--set" + suffix, a.set_assignments,
                 "Set one partitioner setting" + of + ", key=value (repeatable; applied after --config" + suffix +
                     ")")
      ->allow_extra_args(false)
      ->type_name("KEY=VALUE");
  app.add_option("--config" + suffix, a.config_path,
                 "Settings file" + of + " (TOML, as for the main command)")
      ->type_name("FILE");
}

void add_model_options(CLI::App& app, ModelArgs& a) {
  app.add_option("--device", a.device,
                 "Device of the bandwidth model: " + device_presets_text() +
                     " (default h100), or a bandwidth in bytes/s with an optional :FLOP/s (2e12:400e12)")
      ->type_name("NAME|B/s");
  std::string keys;
  for (const auto& k : bandwidth_option_keys()) keys += (keys.empty() ? "" : ", ") + k;
  app.add_option("--bandwidth-option", a.options,
                 "Switch a heuristic of the bandwidth model, key=value (repeatable): " + keys)
      ->allow_extra_args(false)
      ->type_name("KEY=VALUE");
}

}  // namespace pt::app
