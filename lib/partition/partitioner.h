// The partitioner for one prepared joint graph under one set of settings:
// classify -> flow network -> min cut -> extraction. The memory-budget
// cascade (DESIGN.md section 5) calls the same stages with other ban options.
#pragma once

#include <vector>

#include "analysis/classify.h"
#include "graph/graph.h"
#include "partition/ban_options.h"
#include "partition/extract.h"
#include "partition/flow_network.h"
#include "partition/min_cut.h"
#include "partition/settings.h"

namespace pt {

struct CutSolution {
  FlowNetwork network;
  MinCut cut;
};

struct PartitionResult {
  Classification classification;
  CutSolution solution;            // the final solve (the one whose cut is used)
  std::vector<int64_t> cut_values; // every solve's cut value, in order
  Extraction extraction;
  bool default_partition = false;  // nothing needs the backward: PyTorch's default partition
};

// One min-cut solve. Throws InfeasibleError (with the constraint chain) when
// no finite cut exists.
CutSolution solve_cut(const Graph& g, const Classification& c, const Settings& s, const BanOptions& o);

PartitionResult partition_graph(const Graph& prepared, const Settings& s);

}  // namespace pt
