// Heap tuning at start-up (malloc_tuning.cpp): whether this process runs
// with its heap on transparent huge pages, and if not, why.
#pragma once

#include <cstdint>

namespace pt::app {

// "on (...)" or "off (reason)", for the log.
const char* malloc_tuning_state();

// For the main command, before any thread starts: in a process whose whole
// heap is tuned (a large input), from kOneArenaFrom input bytes on, every
// thread allocates from glibc's main arena (M_ARENA_MAX=1). Returns "one
// arena (...)" or "per thread (reason)", for the log.
const char* share_main_arena(uint64_t input_bytes);

}  // namespace pt::app
