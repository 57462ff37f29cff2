#include "pipeline/pipeline.h"

namespace pt {

LoadedGraph load_graph_file(const std::string& path, Format format, const ValidateOptions& options) {
  LoadedGraph out;
  StageTimer timer;
  SplitGraph split = read_graph_records(path, format);
  timer.mark("parse", out.timings);
  out.graph = validate(std::move(split), path, options);
  timer.mark("validate", out.timings);
  return out;
}

namespace {

Partitioned partition(const Graph& joint, const Settings& settings, Graph* release) {
  Partitioned out;
  StageTimer timer;
  out.prepared = release ? prepare_consuming(*release, settings) : prepare(joint, settings);
  timer.mark("prepare", out.timings);
  out.result = partition_graph(out.prepared.graph, settings);
  out.timings.insert(out.timings.end(), out.result.timings.begin(), out.result.timings.end());
  return out;
}

}  // namespace

Partitioned partition_joint(const Graph& joint, const Settings& settings) {
  return partition(joint, settings, nullptr);
}

Partitioned partition_joint_releasing(Graph& joint, const Settings& settings) {
  return partition(joint, settings, &joint);
}

}  // namespace pt
