// What the SVG charts (sweep_plot.h, memory_plot_svg.h) share: text
// escaping, coordinates and an axis with round ticks.
#pragma once

#include <string>
#include <string_view>

namespace pt {

// Text for an XML attribute or element: & < > " ' escaped, and the control
// characters XML 1.0 forbids (graph names may hold any byte) dropped.
std::string xml(std::string_view s);

// A coordinate with one decimal ("12.5").
std::string num(double v);

// An axis from lo to hi with about five ticks at 1, 2 or 5 x 10^k.
struct Axis {
  double lo = 0, hi = 1, step = 1;

  Axis(double min, double max);
  double at(double v, double from, double to) const { return from + (v - lo) / (hi - lo) * (to - from); }
};

}  // namespace pt
