// Explaining a graph with no finite cut: the chain of infinite constraints
// from the source to the sink (a node that cannot be recomputed, cannot be
// saved, and is needed by the backward through nodes that cannot be saved
// either).
#pragma once

#include <string>

#include "analysis/classify.h"
#include "graph/graph.h"
#include "partition/flow_network.h"

namespace pt {

// One line: "<source>: no finite cut: 'x' cannot be recomputed (...) and
// cannot be saved (...); 'y' reads 'x' ...; 'z' must run in the backward (...)".
std::string explain_infeasible(const Graph& g, const Classification& c, const FlowNetwork& net);

}  // namespace pt
