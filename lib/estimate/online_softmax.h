// Which exp of a fused kernel Inductor computes twice per element: the one
// of an online softmax (fused_compute_floor in bandwidth_options.h).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace pt {

// exp(x - amax(x)) over rows longer than Inductor's persistent reductions
// (1024 elements): Inductor computes the max and the sum of exps in one
// loop (online softmax), rescaling the running sum by exp(m_old - m_new)
// at every element, so each element costs two exps. linear_ce's forward
// online-softmax kernel took 2903 us on the H200 where one exp per element
// and the max's read give 1785 us, two give 2790; GPT-2's loss backward
// grows by 810 us when no_reduction_ban recomputes it there. `numel`: per
// node, value_numel.h's.
bool online_softmax_exp(const Graph& g, const std::vector<uint64_t>& numel, NodeId c);

}  // namespace pt
