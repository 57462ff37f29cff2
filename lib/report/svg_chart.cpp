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

void draw_grid(std::ostream& out, const Axis& ax, const Axis& ay, double x0, double x1, double y0, double y1,
               const std::function<std::string(double)>& x_label, const std::function<std::string(double)>& y_label) {
  for (double v = ax.lo; v <= ax.hi + ax.step / 2; v += ax.step) {
    const double x = ax.at(v, x0, x1);
    out << "<line x1=\"" << num(x) << "\" y1=\"" << num(y0) << "\" x2=\"" << num(x) << "\" y2=\"" << num(y1)
        << "\" stroke=\"#e4e4e4\"/>\n<text x=\"" << num(x) << "\" y=\"" << num(y0 + 18)
        << "\" text-anchor=\"middle\">" << x_label(v) << "</text>\n";
  }
  for (double v = ay.lo; v <= ay.hi + ay.step / 2; v += ay.step) {
    const double y = ay.at(v, y0, y1);
    out << "<line x1=\"" << num(x0) << "\" y1=\"" << num(y) << "\" x2=\"" << num(x1) << "\" y2=\"" << num(y)
        << "\" stroke=\"#e4e4e4\"/>\n<text x=\"" << num(x0 - 8) << "\" y=\"" << num(y + 4)
        << "\" text-anchor=\"end\">" << y_label(v) << "</text>\n";
  }
  out << "<rect x=\"" << num(x0) << "\" y=\"" << num(y1) << "\" width=\"" << num(x1 - x0) << "\" height=\""
      << num(y0 - y1) << "\" fill=\"none\" stroke=\"#333\"/>\n";
}

}  // namespace pt
