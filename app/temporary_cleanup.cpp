#include "temporary_cleanup.h"

#include <atomic>
#include <csignal>
#include <cstring>

#include <unistd.h>

namespace pt::app {

namespace {

// Fixed slots, so that the handler reads only memory that never moves: a
// slot's path is written before its `used` flag is set and the flag is
// cleared before the path changes (the signal fences keep the compiler from
// moving the path's bytes across the flag, which is all a handler on this
// thread needs). A run has a handful of outputs at once. The flags sit
// together, apart from the 4 KiB paths: looking for a slot reads one cache
// line, not a page of each path (32 fresh pages when the flags were inside
// the slots).
constexpr int kSlots = 32;
constexpr size_t kPathBytes = 4096;
volatile sig_atomic_t used[kSlots] = {};
char paths[kSlots][kPathBytes] = {};

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

extern "C" void remove_temporaries_and_reraise(int signal) {
  for (int i = 0; i < kSlots; ++i) {
    if (used[i]) ::unlink(paths[i]);  // async-signal-safe
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(signal, &dfl, nullptr);
  ::raise(signal);
}

class Registry final : public TemporaryFileWatcher {
 public:
  void created(const std::string& path) override {
    if (path.size() >= kPathBytes) return;  // too long to keep: the batch still removes it on error
    for (int i = 0; i < kSlots; ++i) {
      if (used[i]) continue;
      std::memcpy(paths[i], path.c_str(), path.size() + 1);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      used[i] = 1;
      return;
    }
  }
  void gone(const std::string& path) override {
    for (int i = 0; i < kSlots; ++i) {
      if (used[i] && path == paths[i]) used[i] = 0;
    }
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
};

Registry registry;

}  // namespace

void install_temporary_cleanup() {
  for (int signal : kSignals) {
    struct sigaction old {};
    if (::sigaction(signal, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&sa.sa_mask);
    for (int other : kSignals) sigaddset(&sa.sa_mask, other);  // one handler at a time
    sa.sa_flags = SA_RESETHAND;
    ::sigaction(signal, &sa, nullptr);
  }
}

TemporaryFileWatcher* temporary_cleanup() { return &registry; }

}  // namespace pt::app
