#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pt {

std::string xml(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
    }
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

Axis::Axis(double min, double max) {
  if (!(max > min)) {  // one value (or none): a band around it
    const double pad = min > 0 ? min * 0.1 : 1;
    min -= pad;
    max += pad;
  }
  min = std::max(0.0, min);
  const double raw = (max - min) / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  step = raw / mag <= 1 ? mag : raw / mag <= 2 ? 2 * mag : raw / mag <= 5 ? 5 * mag : 10 * mag;
  lo = std::floor(min / step) * step;
  hi = std::ceil(max / step) * step;
  if (hi <= lo) hi = lo + step;
}

}  // namespace pt
