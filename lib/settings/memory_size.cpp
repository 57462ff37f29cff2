#include "settings/memory_size.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "graph/errors.h"

namespace pt {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Bytes per unit; 0 for an unknown unit.
double unit_bytes(const std::string& unit) {
  if (unit.empty() || unit == "b") return 1;
  if (unit == "kb") return 1e3;
  if (unit == "mb") return 1e6;
  if (unit == "gb") return 1e9;
  if (unit == "tb") return 1e12;
  if (unit == "kib") return 1024.0;
  if (unit == "mib") return 1024.0 * 1024;
  if (unit == "gib") return 1024.0 * 1024 * 1024;
  if (unit == "tib") return 1024.0 * 1024 * 1024 * 1024;
  return 0;
}

}  // namespace

uint64_t parse_memory_size(std::string_view text, std::string_view key) {
  const std::string t = lower(text);
  const auto fail = [&](const std::string& why) {
    return SettingsError("setting " + std::string(key) + " = '" + std::string(text) + "': " + why);
  };
  if (t == "none" || t == "off") return 0;
  double number = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), number);
  if (ec != std::errc() || end == t.data()) {
    throw fail("expected a size in bytes with an optional unit (3.5GB, 3GiB, 2e9)");
  }
  std::string unit(end, t.data() + t.size());
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  const double per_unit = unit_bytes(unit);
  if (per_unit == 0) throw fail("unknown unit '" + unit + "' (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)");
  const double bytes = std::round(number * per_unit);
  if (!std::isfinite(number) || bytes < 0) throw fail("must be a finite size of at least 0 bytes");
  if (bytes >= 9.2e18) throw fail("larger than 2^63 bytes");
  return static_cast<uint64_t>(bytes);
}

MemoryLimit parse_memory_limit(std::string_view text, std::string_view key) {
  std::string_view t = text;
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (t.empty() || t.back() != '%') return {parse_memory_size(text, key), 0};
  t.remove_suffix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  double percent = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), percent);
  if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(percent) || percent <= 0 ||
      percent > 1e6) {
    throw SettingsError("setting " + std::string(key) + " = '" + std::string(text) +
                        "': expected a percentage of the default plan's peak, above 0% and at most 1000000% (60%)");
  }
  return {0, percent / 100};
}

uint64_t MemoryLimit::resolve(uint64_t default_peak) const {
  if (fraction <= 0) return bytes;
  return static_cast<uint64_t>(std::llround(fraction * static_cast<double>(default_peak)));
}

std::string MemoryLimit::text() const {
  if (fraction <= 0) return std::to_string(bytes);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g%%", fraction * 100);
  return buf;
}

}  // namespace pt
