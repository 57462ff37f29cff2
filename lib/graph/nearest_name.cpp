#include "graph/nearest_name.h"

#include <algorithm>

namespace pt {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];  // row[i-1][j-1]
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

NearestName::NearestName(std::string_view typed)
    : typed_(typed), limit_(std::max<size_t>(2, typed.size() / 3)), best_distance_(limit_ + 1) {}

void NearestName::consider(std::string_view candidate) {
  if (candidate == typed_) return;
  // The lengths alone bound the distance from below: most names of a large
  // graph are skipped without the quadratic count.
  const size_t length_gap = candidate.size() > typed_.size() ? candidate.size() - typed_.size()
                                                             : typed_.size() - candidate.size();
  if (length_gap >= best_distance_) return;
  const size_t d = edit_distance(typed_, candidate);
  // Equally near: the one of the typed length wins (a slip of one key
  // rather than a missing one: "aten.mn" is aten.mm, not aten.min).
  if (d < best_distance_ || (d == best_distance_ && length_gap < best_length_gap_)) {
    best_distance_ = d;
    best_length_gap_ = length_gap;
    best_ = std::string(candidate);
  }
}

std::string nearest_name(std::string_view typed, const std::vector<std::string>& candidates) {
  NearestName nearest(typed);
  for (const auto& c : candidates) nearest.consider(c);
  return nearest.best();
}

std::string nearest_node_name(const Graph& g, std::string_view typed) {
  NearestName nearest(typed);
  for (NodeId id = 0; id < g.size(); ++id) nearest.consider(g[id].name);
  return nearest.best();
}

std::string did_you_mean(const std::string& nearest) {
  return nearest.empty() ? "" : " (did you mean '" + nearest + "'?)";
}

}  // namespace pt
