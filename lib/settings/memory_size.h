// A memory size as users write it: bytes, with an optional decimal (kB, MB,
// GB, TB: powers of 1000) or binary (KiB, MiB, GiB, TiB: powers of 1024)
// unit, case-insensitive, a space allowed before the unit: "3.5GB" is
// 3.5e9 bytes, "3GiB" 3 * 2^30, "2e9" 2e9. The memory_limit setting reads
// its value with it, or a percentage of the default plan's peak ("60%").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pt {

// Rounded to the nearest byte. "0", "none" and "off" are 0 (no limit).
// Throws SettingsError naming `key` and the text for anything else: a
// negative or non-finite number, an unknown unit, a size past 2^63 bytes.
uint64_t parse_memory_size(std::string_view text, std::string_view key);

// The memory_limit setting: a size, or a fraction of the peak of the plan
// the other settings give ("60%"), which lets one line of a CI script or a
// sweep ask the same of graphs of any size. The planner resolves a
// fraction once it has that plan (plan/memory_limit_plan.h).
struct MemoryLimit {
  uint64_t bytes = 0;   // an absolute limit; 0 with fraction 0: none
  double fraction = 0;  // of the default plan's peak; 0: `bytes` is the limit

  bool on() const { return bytes > 0 || fraction > 0; }
  // The limit in bytes, given the default plan's peak.
  uint64_t resolve(uint64_t default_peak) const;
  // As the setting is written back: the bytes, or "60%".
  std::string text() const;
  bool operator==(const MemoryLimit&) const = default;
};

// parse_memory_size's sizes, or a percentage ("60%", "62.5 %") above 0.
// Throws SettingsError naming `key` and the text.
MemoryLimit parse_memory_limit(std::string_view text, std::string_view key);

}  // namespace pt
