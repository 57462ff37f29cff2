// fn(0) ... fn(n - 1) on up to `jobs` threads (0: every hardware thread),
// the caller's thread being one of them. Each call must write only its own
// slot, so the result does not depend on the thread count. The exception
// of the lowest index that threw is rethrown after all have run.
#pragma once

#include <cstddef>
#include <functional>

namespace pt {

void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& fn);

}  // namespace pt
