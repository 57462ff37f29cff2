// "Did you mean": the known name nearest to a mistyped one, by edit
// distance, for the one-line errors about setting keys, subcommands,
// sweep keys, op names and node names.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace pt {

// Levenshtein distance: insertions, deletions and substitutions of single
// bytes, each costing 1.
size_t edit_distance(std::string_view a, std::string_view b);

// Feed it every known name; it keeps the nearest one that is near enough to
// be the one meant: within a third of the typed name's length (at least 2
// edits), and never the typed name itself. Equally near names: the one
// whose length is nearer the typed name's, then the first fed.
class NearestName {
 public:
  explicit NearestName(std::string_view typed);
  void consider(std::string_view candidate);
  // The nearest name, "" when none is near enough.
  const std::string& best() const { return best_; }

 private:
  std::string typed_;
  size_t limit_;
  size_t best_distance_;
  size_t best_length_gap_ = 0;
  std::string best_;
};

std::string nearest_name(std::string_view typed, const std::vector<std::string>& candidates);
// The node name of `g` nearest to `typed` (explain, dot --around).
std::string nearest_node_name(const Graph& g, std::string_view typed);

// " (did you mean 'NAME'?)" for the nearest name, "" when none is near.
std::string did_you_mean(const std::string& nearest);

}  // namespace pt
