#include "report/human_units.h"

#include <cmath>
#include <cstdio>
#include <iterator>

namespace pt {

std::string human_bytes(uint64_t bytes) {
  if (bytes < 1000) return std::to_string(bytes) + " B";
  constexpr const char* kUnits[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
  double v = static_cast<double>(bytes) / 1000.0;
  size_t unit = 0;
  // Move up a unit while the value would print as 1000 or more.
  while (v >= 999.5 && unit + 1 < std::size(kUnits)) {
    v /= 1000.0;
    ++unit;
  }
  char buf[32];
  const char* fmt = v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s";
  std::snprintf(buf, sizeof buf, fmt, v, kUnits[unit]);
  return buf;
}

std::string human_bytes_delta(int64_t bytes) {
  if (bytes == 0) return "0 B";
  const uint64_t magnitude = bytes < 0 ? static_cast<uint64_t>(-(bytes + 1)) + 1 : static_cast<uint64_t>(bytes);
  return (bytes < 0 ? "-" : "+") + human_bytes(magnitude);
}

std::string human_seconds(double seconds) {
  char buf[32];
  const double a = std::fabs(seconds);
  if (a >= 1) std::snprintf(buf, sizeof buf, "%.2f s", seconds);
  else if (a >= 1e-3) std::snprintf(buf, sizeof buf, "%.2f ms", seconds * 1e3);
  else std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
  return buf;
}

}  // namespace pt
