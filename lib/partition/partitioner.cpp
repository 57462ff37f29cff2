#include "partition/partitioner.h"

#include "partition/memory_budget.h"
#include "graph/errors.h"
#include "partition/default_partition.h"
#include "partition/infeasible.h"

namespace pt {

CutSolution solve_cut(const Graph& g, const Classification& c, const Settings& s, const BanOptions& o) {
  CutSolution sol;
  sol.network = build_flow_network(g, c, s, o);
  sol.cut = solve_min_cut(sol.network);
  if (!sol.cut.feasible) throw InfeasibleError(explain_infeasible(g, c, sol.network));
  return sol;
}

PartitionResult partition_graph(const Graph& prepared, const Settings& s) {
  PartitionResult r;
  StageTimer timer;
  r.classification = classify(prepared);
  timer.mark("classify", r.timings);
  // Timed with the flow network, which built them before the report shared them.
  r.node_ops = std::make_shared<const NodeOpClasses>(prepared, s.op_classes);
  if (!r.classification.any_required_bw()) {
    // Nothing reads a tangent: PyTorch falls back to its default partition.
    r.default_partition = true;
    const DefaultPartition d = default_partition(prepared);
    r.solution.network = build_flow_network(prepared, r.classification, s, BanOptions::from_settings(s), *r.node_ops);
    r.chosen = d.saved_values;
    r.chosen.insert(r.chosen.end(), d.saved_sym_nodes.begin(), d.saved_sym_nodes.end());
    r.extraction = extract_partition(prepared, r.classification, d.saved_values, d.saved_sym_nodes);
    timer.mark("extract", r.timings);
    return r;
  }
  std::vector<NodeId> chosen;
  if (effective_budget(prepared, s) < 1) {
    // The memory budget cascade solves up to four cuts itself.
    r.budget = std::make_shared<BudgetDecision>(choose_saved_values(prepared, r.classification, s));
    for (const auto& sol : r.budget->solves) r.cut_values.push_back(sol.cut.value);
    if (!r.budget->solves.empty()) {
      r.solution = r.budget->solves.back();
    } else {
      r.solution.network = build_flow_network(prepared, r.classification, s, BanOptions::from_settings(s), *r.node_ops);
    }
    chosen = r.budget->chosen;
    timer.mark("solve", r.timings);
  } else {
    r.solution.network = build_flow_network(prepared, r.classification, s, BanOptions::from_settings(s), *r.node_ops);
    timer.mark("build_network", r.timings);
    r.solution.cut = solve_min_cut(r.solution.network);
    if (!r.solution.cut.feasible) {
      throw InfeasibleError(explain_infeasible(prepared, r.classification, r.solution.network));
    }
    timer.mark("solve", r.timings);
    r.cut_values.push_back(r.solution.cut.value);
    chosen = r.solution.cut.saved;
  }
  r.chosen = chosen;
  r.extraction = extract_partition(prepared, r.classification, chosen);
  timer.mark("extract", r.timings);
  return r;
}

}  // namespace pt
