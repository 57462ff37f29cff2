// A loop over [0, count) split into `chunks` consecutive ranges, each on its
// own thread (the first on the caller's), that fails as the loop would: when
// bodies throw, the exception rethrown is the one of the lowest range that
// threw, i.e. the one a single in-order pass would have met first (a range
// stops at its first). Each range gets its own scratch state from
// `make_state()`, so bodies share only what they read. Where no thread can
// be started, its range runs on the caller's thread. Used where a stage
// touches each node independently (validate.cpp's node conversion).
#pragma once

#include <algorithm>
#include <cstdint>

#include "graph/side_by_side.h"

namespace pt {

// `body(i, state)` for every i in [0, count), in order within each range.
template <class MakeState, class Body>
void for_ranges_in_order(int count, int chunks, const MakeState& make_state, const Body& body) {
  chunks = std::clamp(chunks, 1, std::max(1, count));
  if (chunks == 1) {
    auto state = make_state();
    for (int i = 0; i < count; ++i) body(i, state);
    return;
  }
  // A range stops at its first failure; run_parts rethrows the lowest
  // range's, the first in order.
  run_parts(static_cast<size_t>(chunks), [&](size_t c) {
    const int begin = static_cast<int>(int64_t{count} * static_cast<int64_t>(c) / chunks);
    const int end = static_cast<int>(int64_t{count} * static_cast<int64_t>(c + 1) / chunks);
    auto state = make_state();
    for (int i = begin; i < end; ++i) body(i, state);
  });
}

}  // namespace pt
