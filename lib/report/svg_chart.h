// What the SVG charts (sweep_plot.h, memory_plot_svg.h) share: text
// escaping, coordinates and an axis with round ticks.
#pragma once

#include <functional>
#include <ostream>
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

// Grey grid lines at every tick of both axes, the tick labels below the
// x axis and left of the y axis, and the plot's frame. The plot spans
// x0..x1 and y0 (bottom) .. y1 (top).
void draw_grid(std::ostream& out, const Axis& ax, const Axis& ay, double x0, double x1, double y0, double y1,
               const std::function<std::string(double)>& x_label, const std::function<std::string(double)>& y_label);

}  // namespace pt
