#include "graph/human_units.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace pt {

namespace {

// `count` with a decimal prefix and three significant digits: "3.29 GB".
// Counts are doubles: traffic and FLOP totals can pass 2^64 (up to 10^33 has
// a prefix; above that the number grows in front of "Q").
std::string decimal_units(double count, const char* unit) {
  constexpr const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y", "R", "Q"};
  char buf[64];
  if (!(count >= 1000)) {  // also NaN, which no count is
    std::snprintf(buf, sizeof buf, "%.0f %s", count, unit);
    return buf;
  }
  double v = count / 1000.0;
  size_t prefix = 1;
  // Move up a prefix while the value would print as 1000 or more.
  while (v >= 999.5 && prefix + 1 < std::size(kPrefixes)) {
    v /= 1000.0;
    ++prefix;
  }
  const char* fmt = v < 9.995 ? "%.2f %s%s" : v < 99.95 ? "%.1f %s%s" : "%.0f %s%s";
  std::snprintf(buf, sizeof buf, fmt, v, kPrefixes[prefix], unit);
  return buf;
}

}  // namespace

std::string human_bytes(double bytes) { return decimal_units(bytes, "B"); }

std::string human_bytes_delta(double bytes) {
  if (bytes == 0) return "0 B";
  return (bytes < 0 ? "-" : "+") + human_bytes(std::fabs(bytes));
}

std::string human_seconds(double seconds) {
  char buf[32];
  const double a = std::fabs(seconds);
  if (a >= 1) std::snprintf(buf, sizeof buf, "%.2f s", seconds);
  else if (a >= 1e-3) std::snprintf(buf, sizeof buf, "%.2f ms", seconds * 1e3);
  else std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
  return buf;
}

std::string shortest_number(double v) {
  // printf's %g with the fewest significant digits that read back as v.
  // No text with fewer digits than the shortest round trip (std::to_chars,
  // in scientific form: its mantissa's digits) can read back as v, so the
  // search starts there and usually ends at once; searching from one digit
  // was ~7,600 instructions a number (a report writes ~30).
  char buf[32];
  int digits = 0;
  if (std::isfinite(v)) {
    const char* end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific).ptr;
    for (const char* p = buf; p < end && *p != 'e'; ++p) digits += *p >= '0' && *p <= '9';
  }
  int precision = std::max(1, digits);
  for (; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string human_seconds_delta(double seconds) {
  if (seconds == 0) return "0 s";
  return (seconds < 0 ? "-" : "+") + human_seconds(std::fabs(seconds));
}

std::string human_flops(double flops) { return decimal_units(flops, "FLOP"); }

std::string count_number(double v) {
  // Integers below 2^63 as integers: 2000000, not 2e+06.
  if (v == std::trunc(v) && std::fabs(v) < 0x1p63) {
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v)).ptr;
    return std::string(buf, end);
  }
  return shortest_number(v);
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string wrap_text(const std::string& text, size_t width, const std::string& first_indent,
                      const std::string& indent) {
  std::string out, line = first_indent;
  bool line_has_word = false;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    const std::string word = text.substr(i, j - i);
    if (line_has_word && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = indent;
      line_has_word = false;
    }
    line += (line_has_word ? " " : "") + word;
    line_has_word = true;
    i = j;
  }
  return out + line + "\n";
}

std::string fit_right(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  return width == 0 ? "" : s.substr(0, width - 1) + "~";
}

std::string fit_left(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  return width == 0 ? "" : "~" + s.substr(s.size() - (width - 1));
}

}  // namespace pt
