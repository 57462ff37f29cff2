// The free end of the malloc heap: glibc's top chunk of the main arena,
// from the last block in use to the program break. A block no freed one
// fits is carved from its start, and its pages are mostly ones the process
// never touched (glibc grows the heap ahead of need: app/malloc_tuning.cpp
// asks for 64 MiB steps), each a fresh page for the kernel to clear when
// first written.
//
// Why this exists: at 10^6 nodes the stages after the input is read take
// ~150 MB of such fresh memory (docs/performance.md, "Session 29"), and on
// the measured VM clearing it cost 1-2.7 ms per MiB. Some of those stages
// run on one core (the CSE walk, the cut's contraction): a second thread
// can clear the heap's free end meanwhile (page_prefault.h, FromStart), so
// that the blocks the run takes next are already in.
//
// Read-only and advisory: the range comes from mallinfo2 and sbrk(0), and
// is empty where they are missing (glibc before 2.33, other C libraries) or
// the heap is not one contiguous break (then it may name other memory,
// which a prefault leaves unchanged too).
#pragma once

#include <cstddef>

namespace pt {

struct MemoryRange {
  const void* data = nullptr;
  size_t bytes = 0;
};

// At most the first `max_bytes` of the heap's free end, as it is now.
MemoryRange malloc_heap_top(size_t max_bytes);

// How much of it a one-core stage has cleared ahead, per node of the graph:
// the stages after the read took ~150 bytes of fresh memory a node at 10^6
// nodes, and two stages clear ahead (CSE's walk, the cut's contraction).
// Below ~130,000 nodes that is under the prefault's 8 MiB threshold, so
// small graphs, whose heap has far more room than they use (64 MiB from
// the start), are left alone.
inline constexpr size_t kWarmBytesPerNode = 64;

}  // namespace pt
