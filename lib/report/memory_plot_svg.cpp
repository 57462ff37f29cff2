#include "report/memory_plot_svg.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "graph/human_units.h"
#include "report/svg_chart.h"

namespace pt {

namespace {

constexpr double kWidth = 900, kHeight = 480;
constexpr double kLeft = 90, kRight = 30, kTop = 78, kBottom = 56;
// Inputs, saved, gradients, temporaries; then the lines of several series.
constexpr const char* kCategoryColor[kMemoryCategoryCount] = {"#adb5bd", "#1c7ed6", "#37b24d", "#f59f00"};
constexpr const char* kSeriesColor[] = {"#1c7ed6", "#e8590c", "#2f9e44", "#7048e8", "#c2255c", "#0c8599"};

const char* series_color(size_t i) { return kSeriesColor[i % (sizeof kSeriesColor / sizeof kSeriesColor[0])]; }

std::string hover_text(const MemoryPlotSeries& s, const MemoryPlotPoint& p) {
  std::string t = (s.label.empty() ? "" : s.label + ": ") + p.node + " (" +
                  (p.step < s.backward_from ? "forward" : "backward") + ", step " + std::to_string(p.step) + ")";
  t += "\nlive " + human_bytes(total_bytes(p.bytes)) + ":";
  for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
    t += (c ? ", " : " ") + std::string(memory_category_name(static_cast<MemoryCategory>(c))) + " " +
         human_bytes(p.bytes[c]);
  }
  if (p.last_step > p.first_step) {
    t += "\nhighest of steps " + std::to_string(p.first_step) + "-" + std::to_string(p.last_step);
  }
  if (!p.largest.empty()) t += "\nlargest live values:";
  for (const auto& m : p.largest) t += "\n  " + m.name + " " + human_bytes(m.bytes) + " (" + m.reason + ")";
  return t;
}

struct Frame {
  Axis x, y;
  double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  double px(double step) const { return x.at(step, x0, x1); }
  double py(double bytes) const { return y.at(bytes, y0, y1); }
  // A point's bucket spans its steps: memory is a step function of the step.
  double left(const MemoryPlotPoint& p) const { return px(static_cast<double>(p.first_step)); }
  double right(const MemoryPlotPoint& p) const { return px(static_cast<double>(p.last_step) + 1); }
};

void write_axes(std::ostream& out, const Frame& f) {
  for (double v = f.x.lo; v <= f.x.hi + f.x.step / 2; v += f.x.step) {
    out << "<line x1=\"" << num(f.px(v)) << "\" y1=\"" << num(f.y0) << "\" x2=\"" << num(f.px(v)) << "\" y2=\""
        << num(f.y1) << "\" stroke=\"#eee\"/><text x=\"" << num(f.px(v)) << "\" y=\"" << num(f.y0 + 16)
        << "\" text-anchor=\"middle\">" << std::llround(v) << "</text>\n";
  }
  for (double v = f.y.lo; v <= f.y.hi + f.y.step / 2; v += f.y.step) {
    out << "<line x1=\"" << num(f.x0) << "\" y1=\"" << num(f.py(v)) << "\" x2=\"" << num(f.x1) << "\" y2=\""
        << num(f.py(v)) << "\" stroke=\"#eee\"/><text x=\"" << num(f.x0 - 6) << "\" y=\"" << num(f.py(v) + 4)
        << "\" text-anchor=\"end\">" << human_bytes(static_cast<uint64_t>(std::llround(v))) << "</text>\n";
  }
  out << "<rect x=\"" << num(f.x0) << "\" y=\"" << num(f.y1) << "\" width=\"" << num(f.x1 - f.x0) << "\" height=\""
      << num(f.y0 - f.y1) << "\" fill=\"none\" stroke=\"#333\"/>\n";
  out << "<text x=\"" << num((f.x0 + f.x1) / 2) << "\" y=\"" << num(kHeight - 14)
      << "\" text-anchor=\"middle\">step: nodes run, the forward then the backward</text>\n";
  out << "<text transform=\"translate(16 " << num((f.y0 + f.y1) / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">live memory</text>\n";
}

// The boundary and the peak of one series.
void write_marks(std::ostream& out, const Frame& f, const MemoryPlotSeries& s, const char* color, size_t index) {
  if (s.backward_from > 0 && s.backward_from < s.steps) {
    const double x = f.px(static_cast<double>(s.backward_from));
    out << "<line class=\"boundary\" x1=\"" << num(x) << "\" y1=\"" << num(f.y0) << "\" x2=\"" << num(x)
        << "\" y2=\"" << num(f.y1) << "\" stroke=\"" << color << "\" stroke-dasharray=\"5,4\"/>\n";
    if (index == 0) {
      out << "<text x=\"" << num(x - 4) << "\" y=\"" << num(f.y1 + 14) << "\" text-anchor=\"end\" fill=\"#555\">forward</text>"
          << "<text x=\"" << num(x + 4) << "\" y=\"" << num(f.y1 + 14) << "\" fill=\"#555\">backward</text>\n";
    }
  }
  if (s.points.empty()) return;
  const MemoryPlotPoint& p = s.points[s.peak_point];
  const double x = (f.left(p) + f.right(p)) / 2, y = f.py(static_cast<double>(s.peak_bytes));
  const std::string label = (s.label.empty() ? "" : s.label + ": ") + "peak " + human_bytes(s.peak_bytes) + " at " + s.peak_at;
  const bool right_half = x > (f.x0 + f.x1) / 2;
  out << "<g class=\"peak\"><title>" << xml(hover_text(s, p)) << "</title><circle cx=\"" << num(x) << "\" cy=\""
      << num(y) << "\" r=\"4.5\" fill=\"#e03131\" stroke=\"white\"/><text x=\"" << num(x + (right_half ? -8 : 8))
      << "\" y=\"" << num(y - 8 - 14 * static_cast<double>(index)) << "\" text-anchor=\"" << (right_half ? "end" : "start")
      << "\" font-weight=\"bold\" fill=\"#c92a2a\">" << xml(label) << "</text></g>\n";
}

// One series stacked by category, hover bands over each bucket.
void write_stacked(std::ostream& out, const Frame& f, const MemoryPlotSeries& s) {
  std::vector<CategoryBytes> below(s.points.size(), CategoryBytes{});
  for (size_t i = 0; i < s.points.size(); ++i) {
    uint64_t sum = 0;
    for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
      below[i][c] = sum;
      sum += s.points[i].bytes[c];
    }
  }
  for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
    out << "<polygon class=\"area\" fill=\"" << kCategoryColor[c] << "\" points=\"";
    for (size_t i = 0; i < s.points.size(); ++i) {
      const std::string y = num(f.py(static_cast<double>(below[i][c] + s.points[i].bytes[c])));
      out << num(f.left(s.points[i])) << "," << y << " " << num(f.right(s.points[i])) << "," << y << " ";
    }
    for (size_t i = s.points.size(); i-- > 0;) {
      const std::string y = num(f.py(static_cast<double>(below[i][c])));
      out << num(f.right(s.points[i])) << "," << y << " " << num(f.left(s.points[i])) << "," << y << (i ? " " : "");
    }
    out << "\"/>\n";
  }
  for (const MemoryPlotPoint& p : s.points) {
    const double a = f.left(p), b = f.right(p);
    out << "<rect class=\"hover\" x=\"" << num(a) << "\" y=\"" << num(f.y1) << "\" width=\"" << num(std::max(b - a, 0.5))
        << "\" height=\"" << num(f.y0 - f.y1) << "\" fill=\"transparent\"><title>" << xml(hover_text(s, p))
        << "</title></rect>\n";
  }
}

// One line of total bytes per series, hover dots on its points.
void write_line(std::ostream& out, const Frame& f, const MemoryPlotSeries& s, const char* color) {
  out << "<polyline class=\"line\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.6\" points=\"";
  for (size_t i = 0; i < s.points.size(); ++i) {
    const std::string y = num(f.py(static_cast<double>(total_bytes(s.points[i].bytes))));
    out << (i ? " " : "") << num(f.left(s.points[i])) << "," << y << " " << num(f.right(s.points[i])) << "," << y;
  }
  out << "\"/>\n";
  for (const MemoryPlotPoint& p : s.points) {
    out << "<circle class=\"hover\" cx=\"" << num((f.left(p) + f.right(p)) / 2) << "\" cy=\""
        << num(f.py(static_cast<double>(total_bytes(p.bytes)))) << "\" r=\"2.5\" fill=\"" << color
        << "\" fill-opacity=\"0.25\"><title>" << xml(hover_text(s, p)) << "</title></circle>\n";
  }
}

void write_legend(std::ostream& out, const std::vector<MemoryPlotSeries>& series) {
  double x = kLeft;
  const double y = 52;
  auto entry = [&](const char* color, const std::string& text) {
    out << "<rect x=\"" << num(x) << "\" y=\"" << num(y - 10) << "\" width=\"12\" height=\"12\" fill=\"" << color
        << "\"/><text x=\"" << num(x + 16) << "\" y=\"" << num(y) << "\">" << xml(text) << "</text>\n";
    x += 30 + 6.5 * static_cast<double>(text.size());
  };
  if (series.size() == 1) {
    for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
      entry(kCategoryColor[c], std::string(memory_category_name(static_cast<MemoryCategory>(c))));
    }
    return;
  }
  for (size_t i = 0; i < series.size(); ++i) {
    entry(series_color(i), series[i].label + " (peak " + human_bytes(series[i].peak_bytes) + ")");
  }
}

}  // namespace

MemoryPlotSeries memory_plot_series(const Graph& g, const MemoryTimeline& t, const PeakMemory& m, std::string label,
                                    size_t max_points) {
  MemoryPlotSeries s;
  s.label = std::move(label);
  s.steps = t.steps.size();
  s.backward_from = t.backward_from;
  s.peak_bytes = m.peak_bytes;
  s.peak_at = m.peak_at;
  s.peak_pass = m.peak_pass;
  for (MemoryPoint& p : memory_curve(g, t, max_points)) {
    if (p.first_step <= t.peak_step && t.peak_step <= p.last_step) s.peak_point = s.points.size();
    MemoryPlotPoint out{p.first_step, p.last_step, p.step, std::string(g[t.steps[p.step]].name), p.bytes, {}};
    for (const LiveValue& v : p.largest) {
      out.largest.push_back({std::string(g[v.node].name), v.bytes, v.category,
                             live_reason_text(v.reason, v.reader == kNoNode ? "" : g[v.reader].name)});
    }
    s.points.push_back(std::move(out));
  }
  return s;
}

void write_memory_svg(std::ostream& out, const std::string& title, const std::vector<MemoryPlotSeries>& series) {
  double steps = 1, top = 0;
  for (const auto& s : series) {
    steps = std::max(steps, static_cast<double>(s.steps));
    top = std::max(top, static_cast<double>(s.peak_bytes));
  }
  const Frame f{Axis(0, steps), Axis(0, top * 1.12)};
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">" << xml(title)
      << ": live memory over the step</text>\n";
  out << "<text x=\"" << kLeft << "\" y=\"" << 40 << "\" fill=\"#555\">"
      << (series.size() == 1 ? "stacked by category" : "total per setting")
      << "; each point is the highest of its steps; hover a point for its node and largest live values</text>\n";
  write_legend(out, series);
  write_axes(out, f);
  for (size_t i = 0; i < series.size(); ++i) {
    if (series.size() == 1) write_stacked(out, f, series[i]);
    else write_line(out, f, series[i], series_color(i));
  }
  for (size_t i = 0; i < series.size(); ++i) write_marks(out, f, series[i], series.size() == 1 ? "#333" : series_color(i), i);
  out << "</svg>\n";
}

}  // namespace pt
