#include "graph/nearest_name.h"

#include <doctest/doctest.h>

using pt::edit_distance;
using pt::nearest_name;

TEST_CASE("edit distance counts single-byte insertions, deletions and substitutions") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("", "ab") == 2);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("cse", "cse") == 0);
  CHECK(edit_distance("flaw", "lawn") == 2);
}

TEST_CASE("the nearest name is the closest one within reach") {
  const std::vector<std::string> keys{"cse", "recompute_views", "max_dist_from_bw", "dist_from_bw_cap",
                                      "dist_from_bw_base"};
  CHECK(nearest_name("max_dist_from_bv", keys) == "max_dist_from_bw");
  CHECK(nearest_name("dist_from_bw_bas", keys) == "dist_from_bw_base");
  CHECK(nearest_name("recompute_view", keys) == "recompute_views");
  CHECK(nearest_name("cs", keys) == "cse");
  // Too far from every name: no guess.
  CHECK(nearest_name("activation", keys).empty());
  CHECK(nearest_name("zzz", keys).empty());
  // The typed name itself is never suggested.
  CHECK(nearest_name("cse", {"cse"}).empty());
  // Equally near: the length nearer the typed one, then the first candidate.
  CHECK(nearest_name("aten.mn", {"aten.min", "aten.mm"}) == "aten.mm");
  CHECK(nearest_name("ab", {"xb", "ax"}) == "xb");
}

TEST_CASE("did_you_mean words the suggestion, or says nothing") {
  CHECK(pt::did_you_mean("cse") == " (did you mean 'cse'?)");
  CHECK(pt::did_you_mean("").empty());
}
