// Why this exists: on the machines we measured, a fresh 4 KiB page costs the
// process a fault of several microseconds (zeroing, cgroup accounting), and a
// run on GPT-2 124M's graph touches about 1,800 of them: 10 of its 24 ms were
// system time. glibc can back the heap with transparent huge pages
// (glibc.malloc.hugetlb=1) and grow it in large steps (glibc.malloc.top_pad),
// which takes the faults to about 200 (docs/performance.md has the figures),
// but it reads its tunables only when a process starts. So the tool executes
// itself once more with them set, first thing, before the C++ runtime and
// protobuf initialize (a constructor that runs before all others; plain
// system calls only, no iostreams or allocation-heavy code).
//
// Turned off by: PT_MALLOC_TUNING=0 in the environment; a GLIBC_TUNABLES the
// user set (theirs win); transparent huge pages disabled on the machine;
// running under valgrind;
// builds without PT_STATIC_RUNTIME (the sanitizer builds replace malloc). If
// the exec fails the tool runs untuned.
#include "malloc_tuning.h"

#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace {
// What the constructor below decided, for the log (-vv).
const char* g_state = "off (built without PT_STATIC_RUNTIME)";
}  // namespace

const char* pt::app::malloc_tuning_state() { return g_state; }

#if defined(PT_MALLOC_REEXEC)
namespace {

constexpr const char* kTunables = "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=33554432";
constexpr const char* kMarker = "PT_MALLOC_TUNING";  // "0": off; "tuned": the re-executed process

// Transparent huge pages in "always" or "madvise" mode (glibc's hugetlb=1
// asks with madvise).
bool huge_pages_usable() {
  const int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char mode[128] = {};
  const ssize_t n = read(fd, mode, sizeof mode - 1);
  close(fd);
  return n > 0 && (std::strstr(mode, "[always]") != nullptr || std::strstr(mode, "[madvise]") != nullptr);
}

__attribute__((constructor(101))) void reexec_with_malloc_tuning(int, char** argv, char**) {
  g_state = "off (no argv)";
  if (argv == nullptr || argv[0] == nullptr) return;
  if (const char* marker = std::getenv(kMarker)) {
    if (std::strcmp(marker, "tuned") == 0) {
      unsetenv(kMarker);  // the re-executed process; what it runs starts plain
      g_state = "on (re-executed with GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=33554432)";
      return;
    }
    g_state = "off (PT_MALLOC_TUNING=0)";
    if (std::strcmp(marker, "0") == 0) return;
  }
  g_state = "off (GLIBC_TUNABLES set by the caller)";
  if (std::getenv("GLIBC_TUNABLES") != nullptr) return;
  g_state = "off (transparent huge pages disabled)";
  if (!huge_pages_usable()) return;
  // Under valgrind (its preload library is in LD_PRELOAD) an exec would leave
  // the tool running natively, outside valgrind.
  g_state = "off (under valgrind)";
  if (const char* preload = std::getenv("LD_PRELOAD"); preload && std::strstr(preload, "vgpreload")) return;
  g_state = "off (could not set the environment)";
  if (setenv("GLIBC_TUNABLES", kTunables, 1) != 0 || setenv(kMarker, "tuned", 1) != 0) return;
  // The binary's real path, not /proc/self/exe (that would name the process
  // "exe" in ps and perf).
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    execv(self, argv);
  }
  unsetenv("GLIBC_TUNABLES");  // the exec failed: run as we are
  unsetenv(kMarker);
  g_state = "off (the exec failed)";
}

}  // namespace
#endif
