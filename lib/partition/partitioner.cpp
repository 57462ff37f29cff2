#include "partition/partitioner.h"

#include "graph/errors.h"
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
  r.classification = classify(prepared);
  r.solution = solve_cut(prepared, r.classification, s, BanOptions::from_settings(s));
  r.cut_values.push_back(r.solution.cut.value);
  r.extraction = extract_partition(prepared, r.classification, r.solution.cut.saved);
  return r;
}

}  // namespace pt
