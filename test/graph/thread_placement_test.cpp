// graph/thread_placement.h: a thread placed beside its caller ends up with
// exactly the cores its caller may use: never fewer (the narrowing that
// moves it is undone), never more (a caller held to one core keeps its
// thread there). Where the kernel then runs it is the scheduler's, and its
// effect on time is the benchmarks' (docs/performance.md, "Session 26").
#include <doctest/doctest.h>

#include <thread>

#include <latch>

#include <pthread.h>
#include <sched.h>

#include "graph/thread_placement.h"

namespace {

cpu_set_t affinity_of(pthread_t thread) {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(pthread_getaffinity_np(thread, sizeof set, &set) == 0);
  return set;
}

// Runs `check` on a thread placed beside this one, while it waits.
template <class Check>
void with_placed_thread(const Check& check) {
  std::latch release(1);
  std::jthread worker([&] { release.wait(); });
  pt::place_beside_caller(worker.native_handle());
  check(worker.native_handle());
  release.count_down();
}

// Restores this thread's cores when the case ends.
class KeepAffinity {
 public:
  KeepAffinity() { saved_ = affinity_of(pthread_self()); }
  ~KeepAffinity() { pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_); }
  const cpu_set_t& saved() const { return saved_; }

 private:
  cpu_set_t saved_{};
};

}  // namespace

TEST_CASE("a placed thread keeps every core its caller may use") {
  const KeepAffinity keep;
  with_placed_thread([&](pthread_t t) {
    const cpu_set_t after = affinity_of(t);
    CHECK(CPU_EQUAL(&after, &keep.saved()));
  });
}

TEST_CASE("a thread placed by a caller held to one core stays on that core") {
  const KeepAffinity keep;
  int only = -1;
  for (int c = 0; c < CPU_SETSIZE && only < 0; ++c) {
    if (CPU_ISSET(c, &keep.saved())) only = c;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(only, &one);
  REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0);
  with_placed_thread([&](pthread_t t) {
    const cpu_set_t after = affinity_of(t);
    CHECK(CPU_EQUAL(&after, &one));
  });
}
