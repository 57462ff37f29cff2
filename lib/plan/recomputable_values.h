// The forward values a plan beyond the knobs may recompute: the per-value
// search (plan/value_search.h) and the exact plan (plan/exact_plan.h) read
// the same rule. Never recomputed, because the maths of training must not
// change and PyTorch's own budget never recomputes them either: random ops
// and seed lookups, values marked must-save, collectives, mutating or
// impure ops. Matmuls may be recomputed, as the budget's knapsack may.
#pragma once

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"

namespace pt {

// Per node of `g`: a forward call_function the plan may recompute.
Flags recomputable_values(const Graph& g, const PartitionResult& base, const Settings& s);

}  // namespace pt
