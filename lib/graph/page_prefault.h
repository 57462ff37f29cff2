// Faulting in a large block that is about to be written, on a second
// thread, while the caller writes it.
//
// Why this exists: the first write to each page of a never-touched block
// makes the kernel clear the page on the writing thread. On the measured
// VM that cost 1-2.5 ms per MiB in slow phases of the host: the flow
// network's arc block (40 MB at 10^6 nodes, written front to back by one
// thread) spent most of the network stage clearing pages
// (docs/performance.md, "Session 28"). BackgroundPrefault asks the kernel to
// fault the block's pages in (madvise MADV_POPULATE_WRITE: as if written,
// contents unchanged) from the block's end toward its start on a second
// thread, so the two threads clear their halves at once. It stops where it
// is when the caller is done with it (its destructor); pages the caller
// reached first cost the second thread only a look-up. Nothing happens
// without `parallel` (--threads 1, small graphs: side_by_side.h's
// split_in_two), where no thread can be started, or where the kernel lacks
// MADV_POPULATE_WRITE (before Linux 5.14); results never depend on it.
//
// FromStart populates the other way, for memory the caller will take from
// its start on, such as the free end of the malloc heap (heap_top.h)
// while the caller's stage runs on one core.
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <thread>

#include "graph/heap_top.h"

namespace pt {

class BackgroundPrefault {
 public:
  // Below this many bytes a thread's start costs more than it saves.
  static constexpr size_t kFromBytes = size_t{8} << 20;
  enum class Order { FromEnd, FromStart };

  BackgroundPrefault(const void* data, size_t bytes, bool parallel, Order order = Order::FromEnd);
  BackgroundPrefault(MemoryRange range, bool parallel, Order order)
      : BackgroundPrefault(range.data, range.bytes, parallel, order) {}
  // Stops the second thread at its next step and joins it.
  ~BackgroundPrefault();
  // Waits until the second thread has faulted in the whole block (tests).
  // Returns whether a thread ran.
  bool finish();
  BackgroundPrefault(const BackgroundPrefault&) = delete;
  BackgroundPrefault& operator=(const BackgroundPrefault&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::optional<std::jthread> worker_;
};

}  // namespace pt
