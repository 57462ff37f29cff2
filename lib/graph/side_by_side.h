// Work split across threads, for the stages that use more than one core on
// large graphs. Where no thread can be started (a container's pids limit)
// the work runs on the caller's thread instead; results never depend on
// where it ran.
//
// run_side_by_side: two pieces of work that share only what they read, run
// at once: `beside` on a second thread, `here` on the caller's (the
// bandwidth model's two passes, validation's name scan, extraction). Without
// `parallel`, `beside` runs first on the caller's thread. An exception from
// `beside` is rethrown once both are done; one from `here` propagates after
// the second thread is joined.
//
// run_parts: `part(k)` for every k in [0, count), part 0 on the caller's
// thread and each other part on a thread of its own (file reads, parse
// ranges, validation ranges). Returns when all are done; where parts threw,
// the exception of the lowest such part is rethrown.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <vector>
#include <system_error>
#include <thread>

#include "graph/thread_placement.h"

namespace pt {

// The `threads` setting (--threads N) as a count: 0 is every core.
inline unsigned thread_count(unsigned threads) {
  return threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

// Below this many nodes a second thread's start and its malloc arena cost
// more than the half of a stage it takes over (gpt2_124m's 2,400 nodes: +2.3
// ms of CPU for the bandwidth model's forward, issue 7). From here on the
// input is a file of 8 MiB or more at the corpus graphs' ~160 bytes a node
// as .pb (more as text), so the tool runs with glibc's huge-page heap
// (app/malloc_tuning.cpp) and the second thread's arena costs few page
// faults: 60,000 nodes took 0.17-0.19 s split against 0.21-0.24 s on one
// thread (session 10; the threshold was 100,000 while thread arenas came in
// 4 KiB pages).
inline constexpr int64_t kParallelNodes = 60'000;

// Validation's node conversion and the report's two passes, the stages with
// the most work per node, split from 2,000 nodes in sessions 24-25, where
// their halves outweighed a thread's start on this 2-core VM then
// (gpt2_124m 9.94 -> 8.71 ms). Session 26 measured the opposite on the same
// kind of VM (Linux 6.18): gpt2_124m 8.04 ms with --threads 1 against 9.58
// split (pair ratio 0.874, 100 alternating runs, threads already placed
// beside their caller, thread_placement.h), gpt2_l24 0.926, gpt2_l96 (18,400
// nodes) 0.951, 10^4 generated nodes 15.4 vs 14.1 ms: below the huge-page
// heap a second thread's arena comes in 4 KiB pages and a vCPU's wake-up
// costs 0.1-0.3 ms. They now split from kParallelNodes like every stage
// (docs/performance.md, "Session 26"); --threads 2 splits any graph.

// Whether a stage that splits in two uses a second thread: `threads` 0 from
// kParallelNodes nodes on where there is a second core, 1 never, 2 or more
// always (tests split small graphs so).
inline bool split_in_two(unsigned threads, int64_t nodes) {
  return threads == 0 ? nodes >= kParallelNodes && std::thread::hardware_concurrency() > 1 : threads > 1;
}

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
      place_beside_caller(worker->native_handle());
    } catch (const std::system_error&) {
      beside();  // no thread to be had: here, first
    }
    here();
  }  // joined
  if (beside_error) std::rethrow_exception(beside_error);
}

template <class Part>
void run_parts(size_t count, const Part& part) {
  std::vector<std::exception_ptr> failures(count);
  auto run = [&](size_t k) {
    try {
      part(k);
    } catch (...) {
      failures[k] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> workers;
    for (size_t k = 1; k < count; ++k) {
      try {
        workers.emplace_back(run, k);
        place_beside_caller(workers.back().native_handle());
      } catch (const std::system_error&) {
        run(k);  // no thread to be had: this part here
      }
    }
    if (count > 0) run(0);
  }  // joined
  for (const auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
}

}  // namespace pt
