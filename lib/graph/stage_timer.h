// Wall-clock seconds per pipeline stage, for the report's `timings`. Never
// written into output files (they stay byte-identical across runs).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace pt {

struct StageTiming {
  std::string stage;
  double seconds = 0;
};

class StageTimer {
 public:
  // Records the time since the previous mark (or construction) under `stage`.
  void mark(std::string stage, std::vector<StageTiming>& into) {
    const auto now = std::chrono::steady_clock::now();
    into.push_back({std::move(stage), std::chrono::duration<double>(now - last_).count()});
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace pt
