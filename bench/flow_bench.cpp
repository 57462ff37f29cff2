// The side-by-side on PyTorch's own flow networks (test/corpus/*.flow.dimacs):
// bare LEMON Preflow on the whole network (build the digraph, runMinCut)
// against partition_tool's solver (min_cut.h: contraction, then Preflow on
// each component, sink side), both from the same arc list. Both values are
// checked equal before timing.
#include <benchmark/benchmark.h>

#include <fstream>
#include <memory>

#include "bench_files.h"
#include "partition/dimacs.h"
#include "partition/min_cut.h"
#include "partition/preflow_reference.h"

namespace pt::bench {

namespace {

std::shared_ptr<const DimacsNetwork> load(const std::string& path) {
  std::ifstream in(path);
  return std::make_shared<const DimacsNetwork>(read_dimacs(in, path));
}

}  // namespace

void register_flow_benchmarks() {
  for (const std::string& path : corpus_files(".flow.dimacs")) {
    const std::string name = short_name(path, ".flow.dimacs");
    const auto net = load(path);
    const FlowValue lemon = preflow_reference_cut(net->vertex_count, net->arcs, net->source, net->sink, false).value;
    const FlowValue ours = solve_min_cut(net->vertex_count, net->arcs, net->source, net->sink).value;
    const bool same = ours == lemon;
    benchmark::RegisterBenchmark(("FlowLemonPreflow/" + name).c_str(), [net](benchmark::State& state) {
      for (auto _ : state) {
        benchmark::DoNotOptimize(preflow_reference_cut(net->vertex_count, net->arcs, net->source, net->sink, false));
      }
    })->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("FlowMinCut/" + name).c_str(), [net, same](benchmark::State& state) {
      if (!same) state.SkipWithError("max-flow values differ from LEMON's");
      for (auto _ : state) {
        benchmark::DoNotOptimize(solve_min_cut(net->vertex_count, net->arcs, net->source, net->sink));
      }
    })->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace pt::bench
