// Heap tuning at start-up (malloc_tuning.cpp): whether this process runs
// with its heap on transparent huge pages, and if not, why.
#pragma once

namespace pt::app {

// "on (...)" or "off (reason)", for the log.
const char* malloc_tuning_state();

}  // namespace pt::app
