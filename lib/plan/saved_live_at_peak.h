// The saved values alive when the peak's node runs, largest first: what the
// per-value search tries to recompute, and what the planner names when no
// plan fits. Only saved values: the forward's and the backward's own
// intermediates are not counted (the plan cannot change them).
#pragma once

#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "partition/extract.h"

namespace pt {

// `peak_at` and `peak_pass` as PeakMemory's. In the forward, a saved value
// is alive once its node has run (the forward runs in graph order); in the
// backward, until its last reader in the backward's order
// (estimate/backward_order.h; `from_first_tangent_reader` as the
// simulation's). Ties in size keep graph order.
std::vector<NodeId> saved_live_at_peak(const Graph& g, const Extraction& e, std::string_view peak_at,
                                       std::string_view peak_pass, bool from_first_tangent_reader);

}  // namespace pt
