#include "partition/settings_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <toml++/toml.h>

#include "graph/errors.h"
#include "graph/nearest_name.h"

namespace pt {

namespace {

constexpr std::string_view kOpClassKeys[] = {
    "recomputable_ops", "random_ops", "view_ops", "compute_intensive_ops", "cse_rand_ops",
};

bool is_op_class(std::string_view key) {
  for (auto k : kOpClassKeys) {
    if (k == key) return true;
  }
  return false;
}

std::string where(const std::string& path, const toml::node& n) {
  return path + ":" + std::to_string(n.source().begin.line) + ": ";
}

// A scalar's text as --set would take it.
std::string scalar_text(const std::string& path, const std::string& key, const toml::node& n) {
  if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* i = n.as_integer()) return std::to_string(i->get());
  if (const auto* f = n.as_floating_point()) {
    std::ostringstream os;
    os.precision(17);
    os << f->get();
    return os.str();
  }
  if (const auto* s = n.as_string()) return s->get();
  throw SettingsError(where(path, n) + key + ": expected a boolean, a number or a string");
}

// A list of op packets, as the comma-separated text --set takes.
std::string list_text(const std::string& path, const std::string& key, const toml::node& n) {
  const auto* list = n.as_array();
  if (!list) {
    if (n.is_string()) return n.as_string()->get();
    throw SettingsError(where(path, n) + key + ": expected a list of ops, e.g. [\"aten.mm\"]");
  }
  std::string out;
  for (const toml::node& item : *list) {
    if (item.is_array()) throw SettingsError(where(path, item) + key + ": nested lists are not settings");
    if (!item.is_string()) throw SettingsError(where(path, item) + key + ": expected op names in quotes");
    out += (out.empty() ? "" : ",") + item.as_string()->get();
  }
  return out;
}

void apply(const std::string& path, const std::string& key, const toml::node& n, Settings& settings) {
  try {
    settings.set(key, n.is_array() || is_op_class(key) ? list_text(path, key, n) : scalar_text(path, key, n));
  } catch (const SettingsError& e) {
    const std::string message = e.what();
    if (message.rfind(path + ":", 0) == 0) throw;
    throw SettingsError(where(path, n) + message);
  }
}

// [recomputable_ops] (or recomputable_ops.KEY = ...): add and remove lists.
void apply_op_class_table(const std::string& path, const std::string& name, const toml::table& table,
                          Settings& settings) {
  for (const auto& [k, v] : table) {
    const std::string key(k.str());
    if (key != "add" && key != "remove") {
      throw SettingsError(where(path, v) + "[" + name + "] takes add and remove lists, not '" + key + "'" +
                          did_you_mean(nearest_name(key, {"add", "remove"})));
    }
    apply(path, name + "." + key, v, settings);
  }
}

}  // namespace

void apply_settings_text(const std::string& text, const std::string& path, Settings& settings) {
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw SettingsError(path + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    if (const toml::array* list = v.as_array(); list && !list->empty() && list->is_array_of_tables()) {
      throw SettingsError(where(path, v) + "[[" + key + "]]: arrays of tables are not settings");
    }
    const toml::table* table = v.as_table();
    if (!table) {
      apply(path, key, v, settings);
      continue;
    }
    if (table->is_inline()) {
      throw SettingsError(where(path, v) + key + ": inline tables are not settings (write [" + key +
                          "] and its keys on lines of their own)");
    }
    if (!is_op_class(key)) {
      NearestName nearest(key);
      for (auto c : kOpClassKeys) nearest.consider(c);
      throw SettingsError(where(path, v) + "unknown section [" + key + "]" + did_you_mean(nearest.best()) +
                          " (sections are op classes: recomputable_ops, random_ops, view_ops, "
                          "compute_intensive_ops, cse_rand_ops)");
    }
    apply_op_class_table(path, key, *table, settings);
  }
}

void apply_settings_file(const std::string& path, Settings& settings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SettingsError(path + ": cannot open settings file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SettingsError(path + ": read error");
  apply_settings_text(text.str(), path, settings);
}

}  // namespace pt
