#include "graph/heap_top.h"

#include <algorithm>

#include <malloc.h>
#include <unistd.h>

// Under AddressSanitizer malloc is the sanitizer's, not glibc's: glibc's
// heap is then not where blocks come from.
#if defined(__SANITIZE_ADDRESS__)
#define PT_MALLOC_REPLACED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PT_MALLOC_REPLACED 1
#endif
#endif

namespace pt {

MemoryRange malloc_heap_top(size_t max_bytes) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33)) && !defined(PT_MALLOC_REPLACED)
  // keepcost: the main arena's top chunk, which ends at the break.
  const struct mallinfo2 info = mallinfo2();
  void* const end = sbrk(0);
  if (end == reinterpret_cast<void*>(-1) || info.keepcost == 0) return {};
  const char* const top = static_cast<const char*>(end) - info.keepcost;
  return {top, std::min(info.keepcost, max_bytes)};
#else
  (void)max_bytes;
  return {};
#endif
}

}  // namespace pt
