// Where a thread the tool starts begins to run.
//
// Why this exists: on the 2-core VM of session 26 (Linux 6.18), a thread
// started while the other core was idle was queued on its parent's core in
// about half of the starts, and waited there for the parent's time slice
// (up to 3 ms) before the load balancer moved it: 6.8 ms of work split in
// two then took 6.8-7.0 ms instead of 3.5. A whole gpt2_124m run was 13%
// faster with --threads 1 than with its two splits (validation's node
// ranges, the report's passes), and so were gpt2_l24-l96 (docs/performance.md,
// "Session 26"). Placed, those splits still did not pay below ~20,000
// nodes, so they now start at kParallelNodes like the rest (side_by_side.h).
//
// place_beside_caller asks the kernel to move a thread that was just started
// to one of the process's other allowed cores, then gives it back every
// allowed core: only where it starts changes, the scheduler is free to move
// it afterwards. Nothing happens where the process may use one core only, or
// where the kernel refuses (a container's seccomp policy); results never
// depend on it. No setting turns it off on its own: --threads 1 starts no
// thread at all.
#pragma once

#include <pthread.h>

namespace pt {

void place_beside_caller(pthread_t thread);

}  // namespace pt
