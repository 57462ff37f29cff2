// Why this exists: on the machines we measured, a fresh 4 KiB page costs the
// process a fault of several microseconds (zeroing, cgroup accounting; ~11 us
// on the session-10 VM), and a run on GPT-2 124M's graph touches about 1,800
// of them: 10 of its 24 ms were system time. So, first thing (a constructor
// that runs before every other initializer; system calls and mallopt only),
// the tool asks glibc to take allocations up to 32 MiB from the heap and to
// grow it in 64 MiB steps, grows it once, and marks that stretch for
// transparent huge pages (MADV_HUGEPAGE): a typical graph then lives in a few
// 2 MiB pages, about 300 faults in all (docs/performance.md has the figures).
//
// Larger graphs outgrow the stretch: 10^6 nodes took 509,000 faults, 5-6 s
// of system time of an 11 s run, most of them on the parse and validation
// threads, whose glibc arenas no madvise of ours reaches. glibc can put
// every arena and every heap extension on huge pages itself
// (glibc.malloc.hugetlb=1), but reads that only from GLIBC_TUNABLES when a
// process starts. So when an argument names a regular file of
// kWholeHeapFrom bytes or more (a graph whose run outgrows the stretch), the
// constructor executes the tool again, at once, with that tunable and the
// settings above in GLIBC_TUNABLES: 1,100-3,700 faults for 10^6 nodes, the
// run 2-3x faster. `generate --layers N` with N of kGenerateLayersFrom or
// more does the same (10^6 nodes: 582,000 faults and 26 s before, ~5,000
// faults and 6.5-10 s after). The new process is the same program with the same
// arguments, descriptors and process id; nothing has been read or written
// before. (Under valgrind, follow it with --trace-children=yes.)
//
// Turned off by: PT_MALLOC_TUNING=0 in the environment; a GLIBC_TUNABLES that
// sets malloc tunables (the caller's choice wins); transparent huge pages
// disabled on the machine; builds without PT_HEAP_TUNING (the sanitizer
// builds replace malloc). A glibc older than 2.35 (no hugetlb tunable) keeps
// the start-up stretch for every input. `-vv` logs which.
#include "malloc_tuning.h"

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {
// What the constructor below decided, for the log (-vv).
const char* g_state = "off (built without PT_HEAP_TUNING)";
// Whether this process runs with the whole heap on huge pages (re-executed).
[[maybe_unused]] bool g_whole_heap = false;  // unread in builds without PT_HEAP_TUNING
}  // namespace

const char* pt::app::malloc_tuning_state() { return g_state; }

// Why one arena: each thread that allocates gets an arena of its own, and
// what one thread frees only that arena reuses. On a large graph the
// stages' second threads (validation, prepare, extraction, the report's
// backward) then ask their arena for memory the main arena holds free and
// already written (the flow network's arcs, the solve's scratch), and get
// fresh pages: at 10^6 nodes the report grew the resident set by 60 MiB
// with two arenas and by 25 with one, and the whole run took 0.83-0.95x
// the time (stage medians, 12-16 alternating runs; report 481 -> 388 ms).
// One arena makes threads that allocate at once wait on its lock (10^5
// nodes: 34 -> 92 futex calls), which costs more than it saves on smaller
// graphs: 10^5 nodes (a 17 MB file) 1.036x, 3 x 10^5 (50 MB) 0.996x. The
// sweep's parallel rows contend the most (10^6 nodes, 4 rows: 1.079x), so
// only the main command asks (docs/performance.md, "Session 28"). Off with
// the rest of the heap tuning (PT_MALLOC_TUNING=0).
const char* pt::app::share_main_arena([[maybe_unused]] uint64_t input_bytes) {
#if defined(PT_HEAP_TUNING)
  constexpr uint64_t kOneArenaFrom = uint64_t{64} << 20;
  if (!g_whole_heap) return "per thread (the heap is not tuned for a large input)";
  if (input_bytes < kOneArenaFrom) return "per thread (an input below 64 MiB)";
  if (mallopt(M_ARENA_MAX, 1) != 1) return "per thread (mallopt refused)";
  return "one (every thread on the main arena: an input of 64 MiB or more)";
#else
  return "per thread (built without PT_HEAP_TUNING)";
#endif
}

#if defined(PT_HEAP_TUNING)
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr int kHeapStep = 64 << 20;       // M_TOP_PAD: grow the heap this much beyond each request
constexpr int kFromHeapBelow = 32 << 20;  // M_MMAP_THRESHOLD (glibc's maximum): smaller blocks come from the heap
constexpr int kKeepFree = 128 << 20;      // M_TRIM_THRESHOLD: free space kept at the heap's top

// Transparent huge pages in "always" or "madvise" mode.
bool huge_pages_usable() {
  const int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char mode[128] = {};
  const ssize_t n = read(fd, mode, sizeof mode - 1);
  close(fd);
  return n > 0 && (std::strstr(mode, "[always]") != nullptr || std::strstr(mode, "[madvise]") != nullptr);
}

// The tunables a re-executed run starts with: glibc's huge-page heap, the
// mallopt settings below, and no mmap for large blocks (mmap_max=0). Without
// that last one every block of 32 MiB or more (10^6 nodes: the node array,
// the CSE table, the file's bytes) was mapped fresh and unmapped on free, so
// the next large block was zeroed by the kernel again: 873 MB of fresh pages
// for a run whose peak is 640 MB. From the heap, a freed block is reused
// (554 MB fresh), and the run's system time fell from 0.44-0.60 s to
// 0.11-0.20 s (docs/performance.md, "Session 14"). Worker threads' arenas
// still map blocks larger than their 64 MiB heaps (glibc's fallback).
// The marker tells the new process it is the second.
constexpr const char* kHugeHeapTunables =
    "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.top_pad=67108864:"
    "glibc.malloc.trim_threshold=134217728:glibc.malloc.mmap_max=0";
constexpr const char* kReexecMarker = "huge-heap";
constexpr uint64_t kWholeHeapFrom = uint64_t{8} << 20;
constexpr long kGenerateLayersFrom = 128;  // ~0.5 MB of heap per generated layer

// The --layers value of a `generate` command line; 0 when it has none.
long generated_layers(int argc, char** argv) {
  bool generate = false;
  long layers = 0;
  for (int i = 1; i < argc && argv[i] != nullptr; ++i) {
    const char* arg = argv[i];
    if (std::strcmp(arg, "generate") == 0) generate = true;
    if (std::strcmp(arg, "--layers") == 0 && i + 1 < argc && argv[i + 1] != nullptr) {
      layers = std::strtol(argv[i + 1], nullptr, 10);
    } else if (std::strncmp(arg, "--layers=", 9) == 0) {
      layers = std::strtol(arg + 9, nullptr, 10);
    }
  }
  return generate ? layers : 0;
}

// The size of the largest regular file that an argument names, alone or as
// the value of --name=value; 0 when none does.
uint64_t largest_file_argument(int argc, char** argv) {
  uint64_t largest = 0;
  for (int i = 1; i < argc && argv[i] != nullptr; ++i) {
    const char* arg = argv[i];
    if (arg[0] == '-') {
      arg = std::strchr(arg, '=');
      if (arg == nullptr) continue;
      ++arg;
    }
    struct stat st {};
    if (stat(arg, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > largest) {
      largest = static_cast<uint64_t>(st.st_size);
    }
  }
  return largest;
}

// Executes this program again with the huge-page tunables (appended to the
// caller's GLIBC_TUNABLES, which set no malloc tunables) and the marker.
// Returns only when that fails.
void reexec_with_huge_page_heap(char** argv, char** envp) {
  std::vector<std::string> env;
  std::string tunables = std::string("GLIBC_TUNABLES=") + kHugeHeapTunables;
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "GLIBC_TUNABLES=", 15) == 0) {
      if ((*e)[15] != '\0') tunables += std::string(":") + (*e + 15);
    } else if (std::strncmp(*e, "PT_MALLOC_TUNING=", 17) != 0) {
      env.emplace_back(*e);
    }
  }
  env.push_back(tunables);
  env.push_back(std::string("PT_MALLOC_TUNING=") + kReexecMarker);
  std::vector<char*> pointers;
  for (std::string& e : env) pointers.push_back(e.data());
  pointers.push_back(nullptr);
  execve("/proc/self/exe", argv, pointers.data());
}

// glibc.malloc.hugetlb exists from glibc 2.35 on; older ones ignore it, and
// the run would only lose the start-up stretch.
bool glibc_has_hugetlb_tunable() {
  int major = 0, minor = 0;
  return std::sscanf(gnu_get_libc_version(), "%d.%d", &major, &minor) == 2 && (major > 2 || (major == 2 && minor >= 35));
}

// glibc passes the program's arguments and environment to its constructors.
__attribute__((constructor(101))) void tune_heap(int argc, char** argv, char** envp) {
  const char* setting = std::getenv("PT_MALLOC_TUNING");
  if (setting && std::strcmp(setting, "0") == 0) {
    g_state = "off (PT_MALLOC_TUNING=0)";
    return;
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (setting && std::strcmp(setting, kReexecMarker) == 0 && tunables &&
      std::strstr(tunables, kHugeHeapTunables) == tunables) {
    g_state = "on (the whole heap on transparent huge pages: glibc.malloc.hugetlb=1 for a large graph)";
    g_whole_heap = true;
    return;
  }
  if (tunables && std::strstr(tunables, "glibc.malloc.")) {
    g_state = "off (GLIBC_TUNABLES sets malloc tunables)";
    return;
  }
  if (!huge_pages_usable()) {
    g_state = "off (transparent huge pages disabled)";
    return;
  }
  if ((largest_file_argument(argc, argv) >= kWholeHeapFrom || generated_layers(argc, argv) >= kGenerateLayersFrom) &&
      glibc_has_hugetlb_tunable()) {
    reexec_with_huge_page_heap(argv, envp);
    // Still here: the stretch below, as for a small input.
  }
  if (mallopt(M_MMAP_THRESHOLD, kFromHeapBelow) != 1 || mallopt(M_TOP_PAD, kHeapStep) != 1 ||
      mallopt(M_TRIM_THRESHOLD, kKeepFree) != 1) {
    g_state = "off (mallopt refused)";
    return;
  }
  // Grow the heap now, then mark the whole 2 MiB pages of the new stretch.
  // The first allocation of a process creates the heap with M_TOP_PAD to
  // spare and writes only near its start; a later, larger one would write a
  // header inside the stretch before it is marked, and the 2 MiB page that
  // holds it would stay on small pages. (volatile: so the compiler keeps the
  // malloc/free pairs.)
  const auto before = reinterpret_cast<uintptr_t>(sbrk(0));
  void* volatile first = std::malloc(64);
  std::free(first);
  auto after = reinterpret_cast<uintptr_t>(sbrk(0));
  if (after - before < 4 * kHugePage) {  // the heap existed already
    void* volatile block = std::malloc(kHugePage);
    std::free(block);
    after = reinterpret_cast<uintptr_t>(sbrk(0));
  }
  const uintptr_t lo = (before + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t hi = after & ~(kHugePage - 1);
  if (hi <= lo) {
    g_state = "off (the heap did not grow)";
    return;
  }
  if (madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE) != 0) {
    g_state = errno == EINVAL ? "off (madvise: EINVAL)" : "off (madvise failed)";
    return;
  }
  // The heap's first blocks would land below `lo`, on up to 2 MiB of small
  // pages (hundreds of faults): a never-touched block fills that gap, so
  // they start in the huge pages. It costs address space, not memory.
  static void* gap_fill = nullptr;
  if (auto* probe = static_cast<char*>(std::malloc(16)); probe != nullptr) {
    const auto at = reinterpret_cast<uintptr_t>(probe) + 64;
    if (at < lo && lo - at > 4096) gap_fill = std::malloc(lo - at);
    if (gap_fill == nullptr) std::free(probe);
  }
  g_state = "on (the first 64 MiB of the heap on transparent huge pages)";
}

}  // namespace
#endif
