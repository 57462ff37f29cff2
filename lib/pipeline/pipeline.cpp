#include "pipeline/pipeline.h"

namespace pt {

LoadedGraph load_graph_file(const std::string& path, Format format, const ValidateOptions& options) {
  LoadedGraph out;
  StageTimer timer;
  GraphRecords records = read_graph_records(path, format, options.threads);
  timer.mark("parse", out.timings);
  out.graph = validate(std::move(records), path, options);
  timer.mark("validate", out.timings);
  return out;
}

namespace {

Partitioned partition(const Graph& joint, const Settings& settings, Graph* release, unsigned threads) {
  Partitioned out;
  StageTimer timer;
  out.prepared = release ? prepare_consuming(*release, settings, threads) : prepare(joint, settings, threads);
  timer.mark("prepare", out.timings);
  out.result = partition_graph(out.prepared.graph, settings, threads);
  out.timings.insert(out.timings.end(), out.result.timings.begin(), out.result.timings.end());
  return out;
}

}  // namespace

Partitioned partition_joint(const Graph& joint, const Settings& settings, unsigned threads) {
  return partition(joint, settings, nullptr, threads);
}

Partitioned partition_joint_releasing(Graph& joint, const Settings& settings, unsigned threads) {
  return partition(joint, settings, &joint, threads);
}

}  // namespace pt
