#include "partition_args.h"

#include <CLI/CLI.hpp>

#include "cli_common.h"

namespace pt::app {

LoadedGraph InputArgs::load() const { return load_graph_file(path, resolve_format(path, format), limits); }

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

void add_input_options(CLI::App& app, InputArgs& a, bool required, bool node_limit) {
  auto* input = app.add_option("-i,--input", a.path, "Joint graph (.pb, .pbtxt or .json)")->type_name("PATH");
  if (required) input->required();
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
