// Why this exists: on a virtual machine whose page faults cost 11-20 us each
// (session 12, docs/performance.md), a run on GPT-2 124M's graph took about
// 65 faults on the tool's own code and read-only data alone: the kernel maps
// 64 KiB of a file per fault, and the code a run touches is spread over
// nearly every 64 KiB of the 6 MB of text. One madvise(MADV_POPULATE_READ)
// over the program's read-only segments maps them all in a single call, so
// those faults go away: then gpt2_124m 0.3-0.45 ms faster, `--version` 0.3 ms.
//
// Off by default since session 17: on the measured machine the call now
// costs more than the faults it saves (it maps all ~1,300 pages, and exit
// unmaps them, where a run faults in ~55 ranges): alternating runs with it
// on and off (150-300 pairs each, medians) took 3.40 vs 2.85 ms for
// `--version`, 4.81 vs 4.35 ms for linear_ce, 9.93 vs 9.51 ms for resnet18
// and 13.74 vs 13.19 ms for gpt2_124m. Where faults are dear, turn it on.
//
// Nothing is read from disk that the run would not map anyway unless the
// file has left the page cache; nothing is written. Linux 5.14 or later;
// older kernels refuse the advice and nothing changes.
//
// Turned on by: PT_PREFAULT_TEXT=1 in the environment (builds without
// PT_HEAP_TUNING, like the sanitizer builds, never do it).
#include "prefault_text.h"

#include <cstdlib>
#include <cstring>

#include <link.h>
#include <sys/mman.h>

namespace {
const char* g_state = "off (built without PT_HEAP_TUNING)";
}  // namespace

const char* pt::app::prefault_text_state() { return g_state; }

#if defined(PT_HEAP_TUNING)
namespace {

#ifndef MADV_POPULATE_READ
constexpr int MADV_POPULATE_READ = 22;  // Linux 5.14 (older headers lack the name)
#endif

// The main program's read-only PT_LOAD segments (code, read-only data).
int populate_program(struct dl_phdr_info* info, size_t, void* data) {
  auto* result = static_cast<int*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W) != 0) continue;
    const uintptr_t page = 4096;
    const uintptr_t lo = (info->dlpi_addr + ph.p_vaddr) & ~(page - 1);
    const uintptr_t hi = (info->dlpi_addr + ph.p_vaddr + ph.p_memsz + page - 1) & ~(page - 1);
    if (madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_READ) != 0) *result = -1;
  }
  return 1;  // the first object is the program itself (libraries: no measurable gain)
}

// After tune_heap (101), which may execute the tool again before this runs.
__attribute__((constructor(102))) void prefault_text() {
  const char* setting = std::getenv("PT_PREFAULT_TEXT");
  if (!setting || std::strcmp(setting, "1") != 0) {
    g_state = "off (the default; PT_PREFAULT_TEXT=1 turns it on)";
    return;
  }
  int result = 0;
  dl_iterate_phdr(populate_program, &result);
  g_state = result == 0 ? "on" : "off (madvise refused MADV_POPULATE_READ)";
}

}  // namespace
#endif
