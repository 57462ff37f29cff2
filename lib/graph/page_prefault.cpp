#include "graph/page_prefault.h"

#include <cstdint>
#include <system_error>

#include <sys/mman.h>

#include "graph/thread_placement.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14 (older headers lack the name)
#endif

namespace pt {

BackgroundPrefault::BackgroundPrefault(const void* data, size_t bytes, bool parallel, Order order) {
  if (!parallel || bytes < kFromBytes) return;
  // Whole 2 MiB steps (a transparent huge page each on the tuned heap),
  // inside the block: the pages at its two ends may hold other blocks'
  // bytes, which populating would not change, but the caller writes those
  // first anyway.
  constexpr uintptr_t kStep = uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t lo = (begin + kStep - 1) & ~(kStep - 1);
  const uintptr_t hi = (begin + bytes) & ~(kStep - 1);
  if (hi <= lo) return;
  try {
    worker_.emplace([this, lo, hi, order] {
      const size_t steps = (hi - lo) / kStep;
      for (size_t k = 0; k < steps && !stop_.load(std::memory_order_relaxed); ++k) {
        const uintptr_t at = order == Order::FromStart ? lo + k * kStep : hi - (k + 1) * kStep;
        // Fails (and ends the thread) where the range is no longer mapped:
        // nothing else can go wrong, the contents are never changed.
        if (madvise(reinterpret_cast<void*>(at), kStep, MADV_POPULATE_WRITE) != 0) return;
      }
    });
    place_beside_caller(worker_->native_handle());
  } catch (const std::system_error&) {
    // No thread to be had: the caller clears its pages itself.
  }
}

BackgroundPrefault::~BackgroundPrefault() { stop_.store(true, std::memory_order_relaxed); }

bool BackgroundPrefault::finish() {
  if (!worker_) return false;
  worker_.reset();  // joins
  return true;
}

}  // namespace pt
