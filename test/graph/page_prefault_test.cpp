// graph/page_prefault.h: the second thread faults a never-touched block's
// whole 2 MiB steps in (from either end) without changing a byte of it,
// does nothing below its threshold or without `parallel`, and stops when
// its owner is done. graph/heap_top.h: the heap's free end, capped.
// What it saves in time is the benchmarks' (docs/performance.md, "Session 28").
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "graph/heap_top.h"
#include "graph/page_prefault.h"

namespace {

constexpr size_t kBlock = size_t{32} << 20;

// A fresh anonymous mapping: never touched, so no page is resident.
struct Mapping {
  char* data = nullptr;
  Mapping() {
    void* p = mmap(nullptr, kBlock, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    data = static_cast<char*>(p);
  }
  ~Mapping() { munmap(data, kBlock); }
};

// Resident 4 KiB pages of [begin, begin + bytes).
size_t resident_pages(const char* begin, size_t bytes) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in(bytes / page);
  REQUIRE(mincore(const_cast<char*>(begin), bytes, in.data()) == 0);
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

// Whether this kernel knows MADV_POPULATE_WRITE (Linux 5.14).
bool kernel_populates() {
  Mapping probe;
  return madvise(probe.data, 4096, 23 /* MADV_POPULATE_WRITE */) == 0;
}

}  // namespace

TEST_CASE("BackgroundPrefault faults in the block's whole 2 MiB steps and changes no byte") {
  for (const auto order : {pt::BackgroundPrefault::Order::FromEnd, pt::BackgroundPrefault::Order::FromStart}) {
    CAPTURE(static_cast<int>(order));
    Mapping m;
    // The first bytes written, as a caller would write them.
    std::memset(m.data, 0x5a, 4096);
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t before = resident_pages(m.data, kBlock);
    CHECK(before < kBlock / page / 4);
    pt::BackgroundPrefault prefault(m.data, kBlock, true, order);
    if (!prefault.finish()) {
      MESSAGE("no second thread could be started here");
      return;
    }
    const size_t after = resident_pages(m.data, kBlock);
    if (!kernel_populates()) {
      MESSAGE("this kernel lacks MADV_POPULATE_WRITE (Linux 5.14)");
      CHECK(after == before);
      return;
    }
    // The mapping need not start on a 2 MiB boundary: all but the partial
    // steps at its two ends (at most 4 MiB) are in.
    CHECK(after * page >= kBlock - (size_t{4} << 20));
    for (size_t i = 0; i < kBlock; i += 4093) CHECK_FALSE(m.data[i] != (i < 4096 ? 0x5a : 0));
  }
}

TEST_CASE("BackgroundPrefault does nothing without parallel or below its threshold") {
  Mapping m;
  const size_t before = resident_pages(m.data, kBlock);
  {
    pt::BackgroundPrefault off(m.data, kBlock, false);
    CHECK_FALSE(off.finish());
  }
  {
    pt::BackgroundPrefault small(m.data, pt::BackgroundPrefault::kFromBytes - 1, true);
    CHECK_FALSE(small.finish());
  }
  CHECK(resident_pages(m.data, kBlock) == before);
  // Destroyed without finish(): it stops at its next step and joins.
  { const pt::BackgroundPrefault dropped(m.data, kBlock, true); }
}

TEST_CASE("malloc_heap_top: the free end of glibc's heap, up to the break, capped") {
  void* const below = std::malloc(64);  // a small block: from the heap, below its free end
  REQUIRE(below != nullptr);
  const pt::MemoryRange top = pt::malloc_heap_top(SIZE_MAX);
  if (top.bytes == 0) {
    MESSAGE("no glibc heap here (another malloc, or the sanitizers')");
    std::free(below);
    return;
  }
  const char* const begin = static_cast<const char*>(top.data);
  CHECK(begin + top.bytes == static_cast<const char*>(sbrk(0)));
  CHECK(static_cast<const char*>(below) < begin);
  const pt::MemoryRange capped = pt::malloc_heap_top(4096);
  CHECK(capped.data == top.data);
  CHECK(capped.bytes == std::min<size_t>(4096, top.bytes));
  std::free(below);
}
