#include "plan/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace pt {

void parallel_for(size_t n, unsigned jobs, const std::function<void(size_t)>& fn) {
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, n));
  std::vector<std::exception_ptr> failures(n);
  std::atomic<size_t> next{0};
  auto take = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        fn(i);
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> workers;
    for (unsigned t = 1; t < jobs; ++t) {
      try {
        workers.emplace_back(take);
      } catch (const std::system_error&) {
        break;  // no more threads to be had: fewer share the work
      }
    }
    take();
  }  // joined
  for (const auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
}

}  // namespace pt
