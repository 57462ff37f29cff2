// The order in which a pass's fused kernels run. The peak simulation walks
// nodes in the order PyTorch emits them (backward_order.h), but Inductor
// runs a fused kernel as one unit, once every value it reads from outside
// is ready: its scheduler sorts the fused nodes by their first member
// (FusedSchedulerNode.min_order) and then emits each after what it depends
// on (Scheduler.topological_sort_schedule). A recomputed value fused with
// the backward that reads the same buffer therefore runs with that
// backward, after the matmul the backward needs, and its own readers wait
// for it. In the mixture-of-experts MLP the recomputed SiLU output and the
// SiLU backward share one kernel: Inductor holds three 168 MB expert
// buffers where a node-by-node walk, running the SiLU output's reader
// first, freed one of them early and reused it.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/node_op_classes.h"
#include "graph/graph.h"

namespace pt {

// Reorders `order` (a pass's nodes, each after its inputs) so that the
// nodes of each kernel (`kernel`: per node, its kernel, -1 for none) run
// together (`is_input`: the pass's inputs, which read nothing in it), each kernel at its first node's place or later, after every
// node outside it that it reads. Nodes outside kernels are units of their
// own. Units keep the order of their first nodes where their inputs allow,
// and a kernel's nodes keep their order. Where kernels depend on one
// another in a cycle, the widest of them runs node by node, and the others
// try again; returns false when any kernel ran node by node for that (and
// after 16 such cycles, leaves `order` as it is).
bool run_kernels_whole(const Graph& g, const NodeOpClasses& ops, const std::vector<int32_t>& kernel,
                       const Flags& is_input, std::vector<NodeId>& order);

}  // namespace pt
