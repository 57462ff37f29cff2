// Settings files (--config FILE): TOML, read with toml++. Top-level keys are
// the keys of --set (settings.h); an op class is edited with a list
// (`recomputable_ops = [...]` replaces it) or a table of `add` / `remove`
// lists (`[recomputable_ops]` then `add = ["aten.mm"]`, or the dotted key
// `recomputable_ops.add = [...]`).
#pragma once

#include <string>

#include "settings/settings.h"

namespace pt {

// Applies the file at `path` to `settings`. Anything TOML accepts that a
// setting cannot mean is an error: inline tables, nested lists, a section
// that is not an op class, a key not of its section. Throws SettingsError,
// one line starting "PATH:LINE: ".
void apply_settings_file(const std::string& path, Settings& settings);

// The same for TOML text already read (`path` names it in errors).
void apply_settings_text(const std::string& text, const std::string& path, Settings& settings);

}  // namespace pt
