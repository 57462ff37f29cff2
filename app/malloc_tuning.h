// Heap tuning at start-up (malloc_tuning.cpp): whether this process runs
// with its heap on transparent huge pages, and if not, why.
#pragma once

namespace pt::app {

// "on (...)" or "off (reason)", for the log.
const char* malloc_tuning_state();

// For a run on the huge-page heap (a large graph): hands every free page of
// the heap back to the kernel (malloc_trim(0)), after a stage that freed
// much of it. Why: glibc returns free memory only from the top of the heap,
// so whether the next stage's allocations land on pages already resident
// or on fresh ones depended on where a small block happened to sit: at 10^6
// nodes the report stage reused the flow network's pages (peak 548 MB) or,
// after an unrelated change in the order of CSE's allocations, spread past
// them (595 MB). Trimmed, the report's peak is the same in both (547-550
// MB). Does nothing otherwise: small graphs stay in the heap's start-up
// stretch of huge pages, which a trim would split.
void return_free_memory();

}  // namespace pt::app
