// Two pieces of work that share only what they read, run at once: `beside`
// on a second thread, `here` on the caller's. Used where a stage splits in
// two on large graphs (the bandwidth model's two passes, CSE's aliases and
// key templates). Without `parallel`, or where no thread can be started (a
// container's pids limit), `beside` runs first on the caller's thread. An
// exception from `beside` is rethrown once both are done; one from `here`
// propagates after the second thread is joined.
#pragma once

#include <exception>
#include <optional>
#include <system_error>
#include <thread>

namespace pt {

template <class Beside, class Here>
void run_side_by_side(bool parallel, const Beside& beside, const Here& here) {
  if (!parallel) {
    beside();
    here();
    return;
  }
  std::exception_ptr beside_error;
  {
    std::optional<std::jthread> worker;
    try {
      worker.emplace([&] {
        try {
          beside();
        } catch (...) {
          beside_error = std::current_exception();
        }
      });
    } catch (const std::system_error&) {
      beside();  // no thread to be had: here, first
    }
    here();
  }  // joined
  if (beside_error) std::rethrow_exception(beside_error);
}

}  // namespace pt
