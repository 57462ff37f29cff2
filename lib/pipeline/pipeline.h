// The whole pipeline for one graph file, stage by stage:
// load -> validate -> prepare -> classify -> network -> solve -> extract.
// Loading is separate so that sweeps and diffs parse a graph once and
// partition it under many settings.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/graph_io.h"
#include "graph/validate.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "graph/stage_timer.h"
#include "prepare/prepare.h"

namespace pt {

struct LoadedGraph {
  Graph graph;
  std::vector<StageTiming> timings;  // parse, validate
};

// Throws InputError with one line naming the file (and node and field).
LoadedGraph load_graph_file(const std::string& path, Format format, const ValidateOptions& options = {});

struct Partitioned {
  PrepareResult prepared;
  PartitionResult result;
  std::vector<StageTiming> timings;  // prepare, then the partitioner's stages
};

Partitioned partition_joint(const Graph& joint, const Settings& settings);

// partition_joint for a caller done with the joint graph's nodes (the
// partition command): the prepared graph is built from them instead of from
// copies (prepare_consuming), so the two never coexist (at 10^6 nodes,
// ~0.3 GB of the peak). `joint` keeps its
// message, source and name index, which the prepared graph shares; its
// nodes, users and outputs are emptied: take a JointSummary
// (report/report_model.h) before.
Partitioned partition_joint_releasing(Graph& joint, const Settings& settings);

}  // namespace pt
