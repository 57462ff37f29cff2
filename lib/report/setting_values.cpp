#include "report/setting_values.h"

#include <charconv>

#include "graph/errors.h"
#include "graph/nearest_name.h"
#include "graph/human_units.h"

namespace pt {

namespace {

SettingValue typed(const std::string& key, const std::string& text, const std::string& default_text) {
  SettingValue v;
  v.key = key;
  v.text = text;
  v.default_text = default_text;
  v.changed = text != default_text;
  if (text == "true" || text == "false") {
    v.kind = SettingValue::Kind::Bool;
    v.boolean = text == "true";
    return v;
  }
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec == std::errc() && end == text.data() + text.size()) {
    v.kind = SettingValue::Kind::Number;
    v.number = number;
    // Settings prints 17 digits; reports show the number as it was written.
    v.text = shortest_number(number);
    double d = 0;
    std::from_chars(default_text.data(), default_text.data() + default_text.size(), d);
    v.default_text = shortest_number(d);
  }
  return v;
}

}  // namespace

std::vector<SettingValue> typed_settings(const Settings& s) { return typed_settings(s, Settings{}); }

std::vector<SettingValue> typed_settings(const Settings& s, const Settings& defaults) {
  const auto default_text = defaults.to_map();
  std::vector<SettingValue> out;
  for (const auto& [key, text] : s.to_map()) out.push_back(typed(key, text, default_text.at(key)));
  return out;
}

SettingValue typed_setting(const Settings& s, const std::string& key) {
  const auto values = s.to_map();
  const auto it = values.find(key);
  if (it == values.end()) {
    NearestName nearest(key);
    for (const auto& [k, v] : values) nearest.consider(k);
    throw SettingsError("'" + key + "' is not a scalar setting" + did_you_mean(nearest.best()) +
                        " (partition_tool --help lists the keys)");
  }
  return typed(key, it->second, Settings{}.to_map().at(key));
}

}  // namespace pt
