// The activation memory budget (docs/design.md section 5), PyTorch's
// choose_saved_values_set: with budget b in [0, 1], try the default cut, then
// more aggressive cuts, then a 0-1 knapsack over the banned-but-recomputable
// nodes (solver: activation_memory_budget_solver) and a final cut that
// refuses to ban what the knapsack chose to recompute.
#pragma once

#include <string>
#include <vector>

#include "analysis/classify.h"
#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"

namespace pt {

struct KnapsackItem {
  NodeId node;
  double memory;   // fraction of (max - min) activation size
  double runtime;  // estimated recompute cost (FLOPs, at least 1)
  bool kept;       // saved (true) or recomputed (false)
};

struct BudgetDecision {
  double budget = 1;                // effective budget (a node's memory_budget overrides the setting)
  std::string stage;                // inputs_only, default, more_aggressive, aggressive, knapsack, knapsack_empty
  std::vector<NodeId> chosen;       // saved values before extraction, graph order
  std::vector<CutSolution> solves;  // every min cut solved, in order (0 to 4)
  double min_gb = 0, max_gb = 0;    // activation sizes of the inputs and of the default cut, in GB
  std::vector<KnapsackItem> items;  // knapsack items, largest first
  std::string solver_note;          // the ilp solver's time limit ran out: what was used ("" otherwise)
};

// The effective budget: the first node carrying memory_budget, else the setting.
double effective_budget(const Graph& g, const Settings& s);

BudgetDecision choose_saved_values(const Graph& g, const Classification& c, const Settings& s);

}  // namespace pt
