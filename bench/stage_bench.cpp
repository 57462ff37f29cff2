// Each pipeline stage alone, on each corpus graph (and $PT_BENCH_GRAPHS):
// parse, validate, prepare, classify, build_network, solve, extract, the
// whole partition_graph after prepare, and the report model (build_report:
// the JSON report's "report" timing, warm). Inputs of a stage are computed once,
// outside the timed loop. And ProtobufParse: reading the file into one
// protobuf message tree (graph_io's read_graph, on every core), what reading
// the input costs with the schema's own parser; freeing the message is not
// timed.
#include <benchmark/benchmark.h>

#include <functional>
#include <memory>

#include "analysis/classify.h"
#include "bench_files.h"
#include "graph/graph_io.h"
#include "graph/validate.h"
#include "partition/ban_options.h"
#include "partition/extract.h"
#include "partition/flow_network.h"
#include "partition/min_cut.h"
#include "partition/partitioner.h"
#include "pipeline/pipeline.h"
#include "prepare/prepare.h"
#include "estimate/device.h"
#include "report/report_model.h"

namespace pt::bench {

namespace {

// Everything the stages read, computed once per graph on first use.
struct Pipeline {
  std::string path;
  Settings settings;
  SplitGraph split;  // what parse gives validate (record_store.h)
  Graph joint;
  PrepareResult prepared;
  Classification classification;
  FlowNetwork network;
  MinCut cut;
  Partitioned partitioned;

  explicit Pipeline(std::string p) : path(std::move(p)) {
    split = read_graph_records(path, Format::Binary);
    joint = validate(split, path);
    prepared = prepare(joint, settings);
    classification = classify(prepared.graph);
    network = build_flow_network(prepared.graph, classification, settings, BanOptions::from_settings(settings));
    cut = solve_min_cut(network);
    partitioned = partition_joint(joint, settings);
  }
};

void add(const std::string& stage, const std::string& name, const std::shared_ptr<std::unique_ptr<Pipeline>>& p,
         const std::string& path, std::function<void(const Pipeline&)> body) {
  benchmark::RegisterBenchmark(("Stage/" + stage + "/" + name).c_str(), [=](benchmark::State& state) {
    if (!*p) *p = std::make_unique<Pipeline>(path);
    for (auto _ : state) body(**p);
  })->Unit(benchmark::kMillisecond);
}

}  // namespace

void register_stage_benchmarks() {
  for (const std::string& path : bench_graphs()) {
    const std::string name = short_name(path, ".pb");
    benchmark::RegisterBenchmark(("ProtobufParse/" + name).c_str(), [path](benchmark::State& state) {
      for (auto _ : state) {
        auto message = read_graph(path, Format::Binary);
        benchmark::DoNotOptimize(message.get());
        state.PauseTiming();
        message.reset();
        state.ResumeTiming();
      }
    })->Unit(benchmark::kMillisecond)->UseRealTime();
    auto p = std::make_shared<std::unique_ptr<Pipeline>>();
    add("parse", name, p, path, [](const Pipeline& q) { benchmark::DoNotOptimize(read_graph_records(q.path, Format::Binary)); });
    add("validate", name, p, path, [](const Pipeline& q) { benchmark::DoNotOptimize(validate(q.split, q.path)); });
    add("prepare", name, p, path, [](const Pipeline& q) { benchmark::DoNotOptimize(prepare(q.joint, q.settings)); });
    add("classify", name, p, path, [](const Pipeline& q) { benchmark::DoNotOptimize(classify(q.prepared.graph)); });
    add("build_network", name, p, path, [](const Pipeline& q) {
      benchmark::DoNotOptimize(build_flow_network(q.prepared.graph, q.classification, q.settings,
                                                  BanOptions::from_settings(q.settings)));
    });
    add("solve", name, p, path, [](const Pipeline& q) { benchmark::DoNotOptimize(solve_min_cut(q.network)); });
    add("extract", name, p, path, [](const Pipeline& q) {
      benchmark::DoNotOptimize(extract_partition(q.prepared.graph, q.classification, q.cut.saved));
    });
    add("partition_graph", name, p, path,
        [](const Pipeline& q) { benchmark::DoNotOptimize(partition_graph(q.prepared.graph, q.settings)); });
    add("report", name, p, path, [](const Pipeline& q) {
      benchmark::DoNotOptimize(build_report({q.joint, q.partitioned, q.settings, parse_device("h100"), {}, {}}));
    });
  }
}

}  // namespace pt::bench
