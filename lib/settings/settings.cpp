#include "settings/settings.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "graph/errors.h"
#include "graph/nearest_name.h"
#include "settings/memory_size.h"

namespace pt {

namespace {

constexpr std::string_view kBoolKeys[] = {
    "cse", "recompute_views", "aggressive_recomputation", "ban_recompute_used_far_apart",
    "ban_recompute_long_fusible_chains", "ban_recompute_materialized_backward",
    "ban_recompute_not_in_allowlist", "ban_recompute_reductions", "treat_parameters_as_free_to_save",
    "ban_recompute_rng_seeds", "memory_limit_block_checkpoints",
};
constexpr std::string_view kNumberKeys[] = {
    "max_dist_from_bw", "activation_memory_budget", "dist_from_bw_base", "dist_from_bw_cap", "ilp_time_limit",
    "memory_limit_ilp_time_limit",
};
constexpr std::string_view kOpClassKeys[] = {
    "recomputable_ops", "random_ops", "view_ops", "compute_intensive_ops", "cse_rand_ops",
};

bool* bool_field(Settings& s, std::string_view key) {
  if (key == "cse") return &s.cse;
  if (key == "recompute_views") return &s.recompute_views;
  if (key == "aggressive_recomputation") return &s.aggressive_recomputation;
  if (key == "ban_recompute_used_far_apart") return &s.ban_recompute_used_far_apart;
  if (key == "ban_recompute_long_fusible_chains") return &s.ban_recompute_long_fusible_chains;
  if (key == "ban_recompute_materialized_backward") return &s.ban_recompute_materialized_backward;
  if (key == "ban_recompute_not_in_allowlist") return &s.ban_recompute_not_in_allowlist;
  if (key == "ban_recompute_reductions") return &s.ban_recompute_reductions;
  if (key == "treat_parameters_as_free_to_save") return &s.treat_parameters_as_free_to_save;
  if (key == "ban_recompute_rng_seeds") return &s.ban_recompute_rng_seeds;
  if (key == "memory_limit_block_checkpoints") return &s.memory_limit_block_checkpoints;
  return nullptr;
}

double* number_field(Settings& s, std::string_view key) {
  if (key == "max_dist_from_bw") return &s.max_dist_from_bw;
  if (key == "activation_memory_budget") return &s.activation_memory_budget;
  if (key == "dist_from_bw_base") return &s.dist_from_bw_base;
  if (key == "dist_from_bw_cap") return &s.dist_from_bw_cap;
  if (key == "ilp_time_limit") return &s.ilp_time_limit;
  if (key == "memory_limit_ilp_time_limit") return &s.memory_limit_ilp_time_limit;
  return nullptr;
}

PacketSet* class_field(Settings& s, std::string_view key) {
  if (key == "recomputable_ops") return &s.op_classes.recomputable;
  if (key == "random_ops") return &s.op_classes.random;
  if (key == "view_ops") return &s.op_classes.view;
  if (key == "compute_intensive_ops") return &s.op_classes.compute_intensive;
  if (key == "cse_rand_ops") return &s.op_classes.cse_rand;
  return nullptr;
}

std::string trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t' || v.front() == '"' || v.front() == '\'')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '"' || v.back() == '\'')) v.remove_suffix(1);
  return std::string(v);
}

std::vector<std::string> split_list(std::string_view v) {
  std::string text = trim(v);
  if (!text.empty() && text.front() == '[') text.erase(0, 1);
  if (!text.empty() && text.back() == ']') text.pop_back();
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = trim(item);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::string format_number(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

// Why `value` is outside the range of number setting `key`, "" when inside.
std::string out_of_range(std::string_view key, double value) {
  if (key == "activation_memory_budget" && (value < 0 || value > 1)) return "must be within [0, 1]";
  if (key == "dist_from_bw_base" && value <= 0) return "must be positive";
  // A distance is a count of nodes: a negative bound or cap means nothing
  // (PyTorch would ban every node, or weigh every value as at distance 1).
  if ((key == "max_dist_from_bw" || key == "dist_from_bw_cap") && value < 0) return "must be 0 or more";
  if (key == "ilp_time_limit" && value <= 0) return "must be positive (seconds)";
  if (key == "memory_limit_ilp_time_limit" && value < 0) return "must be 0 or more (seconds; 0: no exact plan)";
  return "";
}

// The packet an op-class edit names: "aten.mm.default" (a target, as the
// graph and the reports write it) is the packet aten.mm. Throws
// SettingsError for an aten or prims packet the tool does not know.
std::string packet_of(const std::string& key, const std::string& item) {
  std::string packet = item;
  const auto first_dot = packet.find('.');
  if (first_dot == std::string::npos || first_dot == 0 || first_dot + 1 == packet.size()) {
    throw SettingsError("setting " + key + ": '" + item + "' is not an op (write namespace.op, e.g. aten.mm)");
  }
  const auto second_dot = packet.find('.', first_dot + 1);
  if (second_dot != std::string::npos) packet.resize(second_dot);  // drop the overload
  const std::string_view ns = std::string_view(packet).substr(0, first_dot);
  if (ns != "aten" && ns != "prims") return packet;  // custom ops: only the graph knows them
  const auto& known = OpClasses::known_packets();
  if (std::binary_search(known.begin(), known.end(), packet)) return packet;
  NearestName nearest(packet);
  for (auto k : known) nearest.consider(k);
  throw SettingsError("setting " + key + ": '" + item + "' is no op the tool knows" + did_you_mean(nearest.best()));
}

}  // namespace

void Settings::set(std::string_view key_in, std::string_view value_in) {
  const std::string key = trim(key_in);
  const std::string value = trim(value_in);
  if (bool* b = bool_field(*this, key)) {
    if (value == "true" || value == "True" || value == "1" || value == "on") *b = true;
    else if (value == "false" || value == "False" || value == "0" || value == "off") *b = false;
    else throw SettingsError("setting " + key + " = '" + value + "': expected true or false");
    return;
  }
  if (double* d = number_field(*this, key)) {
    double parsed = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(parsed)) {
      throw SettingsError("setting " + key + " = '" + value + "': expected a finite number");
    }
    if (const std::string bad = out_of_range(key, parsed); !bad.empty()) {
      throw SettingsError("setting " + key + " = " + value + ": " + bad);
    }
    *d = parsed;
    return;
  }
  if (key == "activation_memory_budget_solver") {
    if (value != "dp" && value != "greedy" && value != "ilp") {
      throw SettingsError("setting activation_memory_budget_solver = '" + value + "': expected dp, greedy or ilp");
    }
    activation_memory_budget_solver = value;
    return;
  }
  if (key == "memory_limit") {
    memory_limit = parse_memory_limit(value, key);
    return;
  }
  // Op classes: "<class>", "<class>.add", "<class>.remove".
  const auto dot = key.find('.');
  const std::string base = key.substr(0, dot);
  const std::string verb = dot == std::string::npos ? "" : key.substr(dot + 1);
  if (auto* cls = class_field(*this, base); cls && (verb.empty() || verb == "add" || verb == "remove")) {
    std::vector<std::string> packets;
    for (const auto& item : split_list(value)) packets.push_back(packet_of(key, item));
    if (verb.empty()) cls->clear();
    for (const auto& packet : packets) {
      if (verb == "remove") cls->erase(packet);
      else cls->insert(packet);
    }
    return;
  }
  NearestName nearest(key);
  for (const auto& k : scalar_keys()) nearest.consider(k);
  for (auto k : kOpClassKeys) {
    nearest.consider(k);
    nearest.consider(std::string(k) + ".add");
    nearest.consider(std::string(k) + ".remove");
  }
  throw SettingsError("unknown setting '" + key + "'" + did_you_mean(nearest.best()) +
                      " (partition_tool --help lists the keys)");
}

void Settings::set_assignment(std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    throw SettingsError("setting '" + std::string(assignment) + "': expected key=value");
  }
  set(assignment.substr(0, eq), assignment.substr(eq + 1));
}

std::map<std::string, std::string> Settings::to_map() const {
  Settings& self = const_cast<Settings&>(*this);  // field lookups only read through the pointers
  std::map<std::string, std::string> out;
  for (auto k : kBoolKeys) out[std::string(k)] = *bool_field(self, k) ? "true" : "false";
  for (auto k : kNumberKeys) out[std::string(k)] = format_number(*number_field(self, k));
  out["activation_memory_budget_solver"] = activation_memory_budget_solver;
  out["memory_limit"] = memory_limit.text();
  return out;
}

std::vector<std::string> Settings::changed_keys() const { return changed_keys(Settings{}); }

std::vector<std::string> Settings::changed_keys(const Settings& def) const {
  const auto mine = to_map();
  const auto defaults = def.to_map();
  std::vector<std::string> out;
  for (const auto& [k, v] : mine) {
    if (defaults.at(k) != v) out.push_back(k);
  }
  Settings& self = const_cast<Settings&>(*this);
  Settings& def_fields = const_cast<Settings&>(def);  // field lookups only read through the pointers
  for (auto k : kOpClassKeys) {
    if (*class_field(self, k) != *class_field(def_fields, k)) out.push_back(std::string(k));
  }
  return out;
}

std::vector<std::string> Settings::scalar_keys() {
  std::vector<std::string> out;
  for (auto k : kBoolKeys) out.emplace_back(k);
  for (auto k : kNumberKeys) out.emplace_back(k);
  out.emplace_back("activation_memory_budget_solver");
  out.emplace_back("memory_limit");
  return out;
}

std::vector<std::string> Settings::valid_keys() {
  auto out = scalar_keys();
  for (auto k : kOpClassKeys) {
    out.emplace_back(std::string(k) + "[.add|.remove]");
  }
  return out;
}

}  // namespace pt
