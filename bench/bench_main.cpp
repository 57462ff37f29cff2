// pt_bench: Google Benchmark programs over the corpus.
//   Flow{LemonPreflow,MinCut}/<network>: bare LEMON Preflow (runMinCut) and
//     partition_tool's solver (min_cut.h) on PyTorch's own flow networks;
//   Stage/<stage>/<graph>: each pipeline stage alone on each corpus graph.
// Usage: build/bench/pt_bench [--benchmark_filter=Flow] [Google Benchmark flags]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "bench_files.h"

namespace pt::bench {

std::vector<std::string> corpus_files(const std::string& suffix) {
  std::vector<std::string> out;
  for (const char* dir : {"/test/corpus", "/test/corpus/scale"}) {
    for (const auto& e : std::filesystem::directory_iterator(std::string(PT_SOURCE_DIR) + dir)) {
      const std::string p = e.path().string();
      if (p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> bench_graphs() {
  std::vector<std::string> out = corpus_files(".pb");
  if (const char* extra = std::getenv("PT_BENCH_GRAPHS")) {
    std::string list(extra);
    for (size_t start = 0; start <= list.size();) {
      const size_t end = std::min(list.find(':', start), list.size());
      if (end > start) out.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  return out;
}

std::string short_name(const std::string& path, const std::string& suffix) {
  std::string name = std::filesystem::path(path).filename().string();
  if (name.size() >= suffix.size()) name.resize(name.size() - suffix.size());
  return name;
}

}  // namespace pt::bench

int main(int argc, char** argv) {
  pt::bench::register_flow_benchmarks();
  pt::bench::register_stage_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
