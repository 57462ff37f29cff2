// The one rule that keeps every byte sum of the tool exact: a graph's values
// hold at most kMaxGraphValueBytes (2^52 bytes, 4 PiB) together, checked once
// at validation. Every memory figure the tool forms (peak memory, saved
// bytes, live bytes on a timeline, budgets and their knapsacks, plans, diff
// deltas) adds up values of one graph, each at most once or twice, so none
// can come near 2^64; below 2^53 each is also exact as a double.
//
// Memory traffic and FLOPs count a value once per read or per op, which no
// such bound covers: their totals are doubles (bandwidth_model.h), and an
// op's FLOPs are counted exactly in 128 bits (flop_formulas.h).
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace pt {

inline constexpr uint64_t kMaxGraphValueBytes = uint64_t{1} << 52;

// Throws InputError naming g.source and the node at which the running total
// of the nodes' size_bytes passes kMaxGraphValueBytes.
void check_value_bytes_limit(const Graph& g);

}  // namespace pt
