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

// Per node: the backward of a plan may run it (Extraction::recomputed):
// it may be recomputed, or the reference plan's backward runs it too. An
// impure op whose inputs the backward holds stays there by dead-code
// elimination's rule, as in PyTorch, even with every item saved
// (llama_gqa's seeded cuDNN attention): a plan that keeps it where the
// reference plan (PyTorch's own partition) keeps it changes nothing.
Flags runnable_in_backward(const Flags& recomputable, const PartitionResult& reference);

}  // namespace pt
