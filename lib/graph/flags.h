// Yes/no tables, one byte per entry (per node, per arc, per kernel).
//
// Why not Flags: it packs eight entries into a byte, so every
// read is a load, a shift and a mask and every write a read-modify-write.
// Those accesses were 2.5M of the 38M instructions of a gpt2_124m run
// (callgrind), in the per-node loops of extraction,
// the flow network, the fusion groups and the peak-memory simulation.
// A Flag is a bool in its own byte: assigning any value stores true or
// false, as with Flags, and it reads as a bool. A table costs
// 1 MB per 10^6 entries instead of 125 KB.
#pragma once

#include <vector>

namespace pt {

struct Flag {
  bool value = false;
  constexpr Flag() = default;
  constexpr Flag(bool b) : value(b) {}  // NOLINT: implicit, as Flags's elements take bools
  constexpr operator bool() const { return value; }  // NOLINT: reads as a bool
};

using Flags = std::vector<Flag>;

}  // namespace pt
