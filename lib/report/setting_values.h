// Settings as typed values for reports: booleans, numbers and text, with
// whether each differs from PyTorch's default.
#pragma once

#include <string>
#include <vector>

#include "settings/settings.h"

namespace pt {

struct SettingValue {
  enum class Kind { Bool, Number, Text };
  std::string key;
  Kind kind = Kind::Text;
  bool boolean = false;
  double number = 0;
  std::string text;          // the value as Settings prints it
  std::string default_text;  // the default, printed the same way
  bool changed = false;
};

// Every scalar setting, sorted by key. Kinds come from the printed value:
// Settings prints booleans as true/false and numbers in full precision.
std::vector<SettingValue> typed_settings(const Settings& s);
// The same against `defaults`, a default Settings the caller has built.
std::vector<SettingValue> typed_settings(const Settings& s, const Settings& defaults);

// The typed value of one scalar key. Throws SettingsError for an unknown key
// (or an op-class key, which has no scalar value).
SettingValue typed_setting(const Settings& s, const std::string& key);

}  // namespace pt
