// `--plot-memory FILE.svg`: live bytes over the forward then the backward
// (estimate/memory_timeline.h) as a self-contained SVG (no scripts, no fonts
// beyond the generic sans-serif).
//
// One series is drawn stacked by category (inputs, saved, gradients,
// temporaries); several (diff's A and B, a sweep's values) as one line of
// total bytes each. Each series shows its forward/backward boundary and its
// peak, labelled with the node running there; hovering a point (<title>)
// shows its node, its bytes by category and its largest live values.
// Points are buckets of consecutive steps shown at their highest step
// (memory_curve), so a 10^5-node graph draws a few hundred points and the
// peak is exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "estimate/memory_timeline.h"
#include "estimate/peak_memory.h"
#include "graph/graph.h"

namespace pt {

struct MemoryPlotMember {
  std::string name;
  uint64_t bytes = 0;
  MemoryCategory category = MemoryCategory::Temporary;
  std::string reason;
};

struct MemoryPlotPoint {
  size_t first_step = 0, last_step = 0, step = 0;  // MemoryPoint's
  std::string node;                                // run at `step`
  CategoryBytes bytes{};
  std::vector<MemoryPlotMember> largest;
};

// One curve, with its names copied: it outlives the graph it came from.
struct MemoryPlotSeries {
  std::string label;  // empty for a single report; "A", "B", a swept value
  size_t steps = 0, backward_from = 0;
  std::vector<MemoryPlotPoint> points;
  size_t peak_point = 0;  // the point at the simulation's peak step
  uint64_t peak_bytes = 0;
  std::string peak_at, peak_pass;
};

inline constexpr size_t kMemoryPlotPoints = 400;

MemoryPlotSeries memory_plot_series(const Graph& g, const MemoryTimeline& t, const PeakMemory& m, std::string label,
                                    size_t max_points = kMemoryPlotPoints);

// `title` heads the chart (the graph's name).
void write_memory_svg(std::ostream& out, const std::string& title, const std::vector<MemoryPlotSeries>& series);

}  // namespace pt
