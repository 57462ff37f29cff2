// The partitioner for one prepared joint graph under one set of settings:
// classify -> flow network -> min cut -> extraction. The memory-budget
// cascade (docs/design.md section 5) calls the same stages with other ban options.
#pragma once

#include <memory>
#include <vector>

#include "analysis/classify.h"
#include "graph/graph.h"
#include "partition/ban_options.h"
#include "partition/extract.h"
#include "partition/flow_network.h"
#include "partition/min_cut.h"
#include "settings/settings.h"
#include "graph/stage_timer.h"

namespace pt {

struct CutSolution {
  FlowNetwork network;
  MinCut cut;
};

struct BudgetDecision;

struct PartitionResult {
  Classification classification;
  CutSolution solution;            // the final solve (the one whose cut is used)
  std::vector<NodeId> chosen;      // saved values chosen before extraction, graph order
  std::vector<FlowValue> cut_values;  // every solve's cut value, in order
  Extraction extraction;
  bool default_partition = false;  // nothing needs the backward: PyTorch's default partition
  // The saved set was given (a memory-limit plan: plan/plan_candidate.h's
  // partition_with_saved), not found by a min cut: `solution` is empty.
  bool saved_set_given = false;
  std::vector<StageTiming> timings;  // classify, build network, solve, extract
  // Set when activation_memory_budget < 1: how the budget cascade decided.
  std::shared_ptr<const BudgetDecision> budget;
  // The prepared graph's op classes under the settings' op_classes, looked
  // up once: the flow network's, and the report's (build_report reuses
  // them; built again there they were 0.9% of gpt2_124m's instructions).
  std::shared_ptr<const NodeOpClasses> node_ops;
};

// One min-cut solve. Throws InfeasibleError (with the constraint chain) when
// no finite cut exists.
CutSolution solve_cut(const Graph& g, const Classification& c, const Settings& s, const BanOptions& o);

PartitionResult partition_graph(const Graph& prepared, const Settings& s);

}  // namespace pt
