// A plan's saved set made one the bridge can apply: the per-value search
// (plan/value_search.h) and the exact plan (plan/exact_candidate.h) both
// propose saved sets whose extraction may run in the backward a value that
// may not run there (plan/recomputable_values.h's runnable_in_backward), or
// that name a tuple, which cannot be saved whole.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"

namespace pt {

// `saved` with each tuple replaced by its getitems, extracted; values the
// extraction runs in the backward but may not join the saved set until none
// is left. Throws InfeasibleError when no such saved set exists (or no
// gradient can be computed from it).
PartitionResult partition_runnable(const Graph& g, const PartitionResult& lent, const Flags& runnable,
                                   std::vector<NodeId> saved);

}  // namespace pt
