#include "report/sweep_plot.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "graph/human_units.h"
#include "report/svg_chart.h"

namespace pt {

namespace {

constexpr double kWidth = 760, kHeight = 500;
constexpr double kLeft = 90, kRight = 30, kTop = 60, kBottom = 70;

uint64_t memory_of(const SweepRow& row, PlotMemory x) { return x == PlotMemory::Peak ? row.peak_bytes : row.saved_bytes; }

bool dominates(const SweepRow& a, const SweepRow& b, PlotMemory x) {
  return memory_of(a, x) <= memory_of(b, x) && a.recomputed_flops <= b.recomputed_flops &&
         (memory_of(a, x) < memory_of(b, x) || a.recomputed_flops < b.recomputed_flops);
}

// A memory_limit sweep: x the simulated peak, y the predicted step time;
// the rows' plans (the tool's frontier: what each limit gets) as a filled
// staircase, the activation_memory_budget grid's plans as hollow squares.
void write_limit_frontier_svg(std::ostream& out, const SweepResult& r) {
  std::vector<const SweepRow*> tool, knob;
  for (const auto& row : r.rows) {
    if (row.error.empty()) tool.push_back(&row);
  }
  for (const auto& row : r.knob_points) knob.push_back(&row);
  std::stable_sort(tool.begin(), tool.end(), [](const SweepRow* a, const SweepRow* b) { return a->peak_bytes < b->peak_bytes; });
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  bool first = true;
  for (const auto* list : {&tool, &knob}) {
    for (const SweepRow* row : *list) {
      const double x = static_cast<double>(row->peak_bytes), y = row->step_seconds() * 1e3;
      xmin = first ? x : std::min(xmin, x);
      xmax = first ? x : std::max(xmax, x);
      ymin = first ? y : std::min(ymin, y);
      ymax = first ? y : std::max(ymax, y);
      first = false;
    }
  }
  const Axis ax(xmin, xmax), ay(ymin, ymax);
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  auto px = [&](const SweepRow& row) { return ax.at(static_cast<double>(row.peak_bytes), x0, x1); };
  auto py = [&](const SweepRow& row) { return ay.at(row.step_seconds() * 1e3, y0, y1); };
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">" << xml(r.graph)
      << ": predicted step time vs. peak memory, sweeping memory_limit</text>\n";
  out << "<text x=\"" << kLeft << "\" y=\"42\" fill=\"#555\">" << tool.size() << " limits with a plan ("
      << r.rows.size() - tool.size() << " without), times for " << xml(r.device) << "</text>\n";
  draw_grid(out, ax, ay, x0, x1, y0, y1,
            [](double v) { return human_bytes(static_cast<uint64_t>(std::llround(v))); },
            [](double v) { return human_seconds(v / 1e3); });
  out << "<text x=\"" << num((x0 + x1) / 2) << "\" y=\"" << num(kHeight - 22)
      << "\" text-anchor=\"middle\">simulated peak memory (memory.peak_bytes)</text>\n";
  out << "<text transform=\"translate(18 " << num((y0 + y1) / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">predicted step time (bandwidth model)</text>\n";
  if (tool.size() > 1) {
    out << "<polyline fill=\"none\" stroke=\"#d9480f\" stroke-width=\"2\" points=\"";
    for (size_t k = 0; k < tool.size(); ++k) {
      if (k > 0) out << " " << num(px(*tool[k])) << "," << num(py(*tool[k - 1]));
      out << (k ? " " : "") << num(px(*tool[k])) << "," << num(py(*tool[k]));
    }
    out << "\"/>\n";
  }
  for (const SweepRow* row : knob) {
    out << "<g><title>activation_memory_budget=" << xml(row->value) << ": peak " << human_bytes(row->peak_bytes)
        << ", step " << human_seconds(row->step_seconds()) << "</title><rect x=\"" << num(px(*row) - 4) << "\" y=\""
        << num(py(*row) - 4) << "\" width=\"8\" height=\"8\" fill=\"none\" stroke=\"#1c7ed6\"/></g>\n";
  }
  for (const SweepRow* row : tool) {
    out << "<g><title>memory_limit=" << xml(row->value) << ": peak " << human_bytes(row->peak_bytes) << ", step "
        << human_seconds(row->step_seconds()) << "</title><circle cx=\"" << num(px(*row)) << "\" cy=\""
        << num(py(*row)) << "\" r=\"5\" stroke=\"#d9480f\" fill=\"#d9480f\"/></g>\n";
  }
  // The legend, in the plot's top right corner over the points
  // (the frontier falls to the right: slow, large plans are rare there).
  const double lx = x1 - 262, ly = y1 + 16;
  out << "<rect x=\"" << num(lx - 10) << "\" y=\"" << num(ly - 12) << "\" width=\"270\" height=\"40\" fill=\"white\" "
      << "stroke=\"#ccc\"/>\n";
  out << "<circle cx=\"" << num(lx) << "\" cy=\"" << num(ly - 2) << "\" r=\"5\" fill=\"#d9480f\"/>\n";
  out << "<text x=\"" << num(lx + 12) << "\" y=\"" << num(ly + 2) << "\">memory_limit: the plan each limit gets</text>\n";
  out << "<rect x=\"" << num(lx - 4) << "\" y=\"" << num(ly + 12) << "\" width=\"8\" height=\"8\" fill=\"none\" "
      << "stroke=\"#1c7ed6\"/>\n";
  out << "<text x=\"" << num(lx + 12) << "\" y=\"" << num(ly + 20) << "\">activation_memory_budget (PyTorch)</text>\n";
  out << "</svg>\n";
}

}  // namespace

std::vector<size_t> pareto_rows(const SweepResult& r, PlotMemory x) {
  std::vector<size_t> out;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    if (!r.rows[i].error.empty()) continue;
    bool dominated = false;
    for (const auto& other : r.rows) dominated = dominated || (other.error.empty() && dominates(other, r.rows[i], x));
    if (!dominated) out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(), [&](size_t a, size_t b) {
    const uint64_t ma = memory_of(r.rows[a], x), mb = memory_of(r.rows[b], x);
    return ma < mb || (ma == mb && r.rows[a].recomputed_flops > r.rows[b].recomputed_flops);
  });
  return out;
}

void write_sweep_svg(std::ostream& out, const SweepResult& r, PlotMemory xm) {
  if (r.key == "memory_limit") {
    write_limit_frontier_svg(out, r);
    return;
  }
  std::vector<size_t> finite;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    if (r.rows[i].error.empty()) finite.push_back(i);
  }
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  for (size_t k = 0; k < finite.size(); ++k) {
    const SweepRow& row = r.rows[finite[k]];
    const double x = static_cast<double>(memory_of(row, xm)), y = static_cast<double>(row.recomputed_flops);
    xmin = k == 0 ? x : std::min(xmin, x);
    xmax = k == 0 ? x : std::max(xmax, x);
    ymin = k == 0 ? y : std::min(ymin, y);
    ymax = k == 0 ? y : std::max(ymax, y);
  }
  const Axis ax(xmin, xmax), ay(ymin, ymax);
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  auto px = [&](const SweepRow& row) { return ax.at(static_cast<double>(memory_of(row, xm)), x0, x1); };
  auto py = [&](const SweepRow& row) { return ay.at(static_cast<double>(row.recomputed_flops), y0, y1); };

  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">" << xml(r.graph)
      << (xm == PlotMemory::Peak ? ": peak memory" : ": saved memory") << " vs. recomputation, sweeping " << xml(r.key) << "</text>\n";
  const size_t skipped = r.rows.size() - finite.size();
  out << "<text x=\"" << kLeft << "\" y=\"42\" fill=\"#555\">" << finite.size() << " values"
      << (skipped ? ", " + std::to_string(skipped) + " without a finite cut not drawn" : std::string())
      << "; filled: Pareto-optimal; hover a point for its row (times for " << xml(r.device) << ")</text>\n";

  // Grid, ticks and axis titles.
  draw_grid(out, ax, ay, x0, x1, y0, y1,
            [](double v) { return human_bytes(static_cast<uint64_t>(std::llround(v))); },
            [](double v) { return human_flops(v); });
  out << "<text x=\"" << num((x0 + x1) / 2) << "\" y=\"" << num(kHeight - 22)
      << "\" text-anchor=\"middle\">"
      << (xm == PlotMemory::Peak ? "peak activation memory (memory.peak_bytes)" : "bytes saved for the backward (saved_bytes)")
      << "</text>\n";
  out << "<text transform=\"translate(18 " << num((y0 + y1) / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">FLOPs recomputed in the backward</text>\n";

  // The frontier as a staircase: from each optimal point right, then down.
  const std::vector<size_t> front = pareto_rows(r, xm);
  if (front.size() > 1) {
    out << "<polyline fill=\"none\" stroke=\"#d9480f\" stroke-width=\"2\" points=\"";
    for (size_t k = 0; k < front.size(); ++k) {
      const SweepRow& row = r.rows[front[k]];
      if (k > 0) out << " " << num(px(row)) << "," << num(py(r.rows[front[k - 1]]));
      out << (k ? " " : "") << num(px(row)) << "," << num(py(row));
    }
    out << "\"/>\n";
  }
  // Rows with the same memory and recompute share one point and one label
  // ("0.4, 0.45, 0.5"; the first and last of a long run: "0.1 .. 0.35 (6)").
  Flags drawn(r.rows.size(), false);
  for (size_t i : finite) {
    if (drawn[i]) continue;
    const SweepRow& row = r.rows[i];
    std::vector<std::string> same;
    for (size_t j : finite) {
      if (memory_of(r.rows[j], xm) == memory_of(row, xm) && r.rows[j].recomputed_flops == row.recomputed_flops) {
        same.push_back(r.rows[j].value);
        drawn[j] = true;
      }
    }
    std::string label = same.front();
    if (same.size() > 3) label += " .. " + same.back() + " (" + std::to_string(same.size()) + ")";
    else for (size_t k = 1; k < same.size(); ++k) label += ", " + same[k];
    const bool optimal = std::find(front.begin(), front.end(), i) != front.end();
    out << "<g><title>" << xml(r.key) << "=" << xml(label) << ": peak " << human_bytes(row.peak_bytes) << " at "
        << xml(row.peak_at) << ", saved " << human_bytes(row.saved_bytes) << ", recomputed " << row.recomputed_count
        << " ops / " << human_flops(row.recomputed_flops) << ", step " << human_seconds(row.step_seconds())
        << "</title>";
    out << "<circle cx=\"" << num(px(row)) << "\" cy=\"" << num(py(row)) << "\" r=\"5\" stroke=\"#d9480f\" fill=\""
        << (optimal ? "#d9480f" : "white") << "\"/>";
    out << "<text x=\"" << num(px(row) + 7) << "\" y=\"" << num(py(row) - 7) << "\" font-size=\"10\" fill=\"#333\">"
        << xml(label) << "</text></g>\n";
  }
  out << "</svg>\n";
}

}  // namespace pt
