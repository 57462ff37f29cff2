#include "estimate/memory_timeline.h"

#include <algorithm>
#include <numeric>

namespace pt {

namespace {

bool live_during(const ValueLifetime& v, size_t step) {
  return static_cast<size_t>(v.first) <= step && step <= static_cast<size_t>(v.last);
}

LiveValue live_value(const ValueLifetime& v, size_t step) {
  LiveValue out;
  out.node = v.node;
  out.bytes = v.bytes;
  out.category = v.category;
  out.reason = v.reason == LiveReason::AwaitingReader && static_cast<size_t>(v.first) == step
                   ? LiveReason::RunningKernel
                   : v.reason;
  out.reader = v.reader;
  return out;
}

bool larger(const LiveValue& a, const LiveValue& b) {
  return a.bytes > b.bytes || (a.bytes == b.bytes && a.node < b.node);
}

// Splits steps [from, to) into `points` buckets of consecutive steps and
// appends each bucket's highest step.
void add_buckets(const std::vector<CategoryBytes>& by_step, size_t from, size_t to, size_t points,
                 std::vector<MemoryPoint>& out) {
  if (to <= from) return;
  points = std::max<size_t>(1, std::min(points, to - from));
  const size_t width = (to - from + points - 1) / points;
  for (size_t first = from; first < to; first += width) {
    MemoryPoint p;
    p.first_step = first;
    p.last_step = std::min(to, first + width) - 1;
    p.step = first;
    for (size_t s = first + 1; s <= p.last_step; ++s) {
      if (total_bytes(by_step[s]) > total_bytes(by_step[p.step])) p.step = s;
    }
    p.bytes = by_step[p.step];
    out.push_back(std::move(p));
  }
}

// Fills each point's `largest` with up to `members` values live at its
// step: lifetimes in size order each join the points their life spans that
// are not yet full; `next` skips full points (path-halving), so a lifetime
// costs the points it joins, not the points it spans.
void add_largest(const MemoryTimeline& t, size_t members, std::vector<MemoryPoint>& points) {
  std::vector<size_t> order(t.lifetimes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::erase_if(order, [&](size_t i) { return t.lifetimes[i].bytes == 0; });
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return larger(live_value(t.lifetimes[a], 0), live_value(t.lifetimes[b], 0));
  });
  std::vector<size_t> next(points.size() + 1);
  std::iota(next.begin(), next.end(), size_t{0});
  auto open_from = [&](size_t k) {
    while (next[k] != k) {
      next[k] = next[next[k]];
      k = next[k];
    }
    return k;
  };
  auto step_before = [&](size_t step) {
    return std::lower_bound(points.begin(), points.end(), step,
                            [](const MemoryPoint& p, size_t s) { return p.step < s; }) -
           points.begin();
  };
  for (size_t i : order) {
    const ValueLifetime& v = t.lifetimes[i];
    const auto lo = static_cast<size_t>(step_before(static_cast<size_t>(v.first)));
    for (size_t k = open_from(lo); k < points.size() && live_during(v, points[k].step); k = open_from(k + 1)) {
      points[k].largest.push_back(live_value(v, points[k].step));
      if (points[k].largest.size() >= members) next[k] = k + 1;
    }
  }
}

}  // namespace

std::string_view memory_category_name(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::Input: return "inputs";
    case MemoryCategory::Saved: return "saved";
    case MemoryCategory::Gradient: return "gradients";
    case MemoryCategory::Temporary: return "temporaries";
  }
  return "temporaries";
}

std::vector<LiveValue> live_at(const Graph& /*g: the graph t was recorded on*/, const MemoryTimeline& t, size_t step) {
  std::vector<LiveValue> out;
  for (const ValueLifetime& v : t.lifetimes) {
    if (live_during(v, step)) out.push_back(live_value(v, step));
  }
  std::sort(out.begin(), out.end(), larger);
  return out;
}

std::string live_reason_text(LiveReason reason, std::string_view reader_name) {
  const std::string reader = reader_name.empty() ? "" : ", read last by " + std::string(reader_name);
  switch (reason) {
    case LiveReason::Input: return "parameter or input, held for the whole step";
    case LiveReason::Tangent: return "tangent (an input of the backward)" + reader;
    case LiveReason::Saved: return "saved for the backward" + reader;
    case LiveReason::Gradient: return "gradient the backward returns";
    case LiveReason::ForwardOutput: return "forward output, held to the end of the step";
    case LiveReason::RunningKernel: return "temporary of the running kernel" + reader;
    case LiveReason::AwaitingReader: return "temporary" + reader;
    case LiveReason::HeldForReuse:
      return "freed, held for the next buffer of its size and dtype" +
             (reader_name.empty() ? std::string() : ", which " + std::string(reader_name) + " takes");
  }
  return "temporary";
}

std::string_view live_reason_code(LiveReason reason) {
  switch (reason) {
    case LiveReason::Input: return "input";
    case LiveReason::Tangent: return "tangent";
    case LiveReason::Saved: return "saved";
    case LiveReason::Gradient: return "gradient";
    case LiveReason::ForwardOutput: return "forward_output";
    case LiveReason::RunningKernel: return "running_kernel";
    case LiveReason::AwaitingReader: return "awaiting_reader";
    case LiveReason::HeldForReuse: return "held_for_reuse";
  }
  return "awaiting_reader";
}

uint64_t total_bytes(const CategoryBytes& b) { return std::accumulate(b.begin(), b.end(), uint64_t{0}); }

std::vector<CategoryBytes> bytes_by_step(const MemoryTimeline& t) {
  // Each lifetime adds its bytes at its first step and takes them back
  // after its last: one pass over the lifetimes, one over the steps.
  std::vector<CategoryBytes> delta(t.steps.size() + 1, CategoryBytes{});
  for (const ValueLifetime& v : t.lifetimes) {
    const auto c = static_cast<size_t>(v.category);
    const uint64_t bytes = v.bytes;
    const auto first = static_cast<size_t>(v.first);
    const size_t end = std::min(t.steps.size(), static_cast<size_t>(v.last) + (v.last == ValueLifetime::kStillLive ? 0 : 1));
    if (first >= end) continue;
    delta[first][c] += bytes;  // unsigned: the differences wrap and cancel
    delta[end][c] -= bytes;
  }
  std::vector<CategoryBytes> out(t.steps.size(), CategoryBytes{});
  CategoryBytes running{};
  for (size_t s = 0; s < t.steps.size(); ++s) {
    for (size_t c = 0; c < kMemoryCategoryCount; ++c) running[c] += delta[s][c];
    out[s] = running;
  }
  return out;
}

std::vector<MemoryPoint> memory_curve(const Graph& /*g: the graph t was recorded on*/, const MemoryTimeline& t, size_t max_points, size_t members) {
  std::vector<MemoryPoint> out;
  const size_t steps = t.steps.size();
  if (steps == 0 || max_points == 0) return out;
  const std::vector<CategoryBytes> by_step = bytes_by_step(t);
  // The points shared by the passes in proportion to their steps, one at least each.
  const size_t forward = t.backward_from;
  size_t forward_points = forward == 0 ? 0 : std::max<size_t>(1, max_points * forward / steps);
  if (forward < steps && forward_points >= max_points) forward_points = max_points - 1;
  add_buckets(by_step, 0, forward, std::max<size_t>(1, forward_points), out);
  add_buckets(by_step, forward, steps, std::max<size_t>(1, max_points - forward_points), out);
  if (members > 0) add_largest(t, members, out);
  return out;
}

}  // namespace pt
