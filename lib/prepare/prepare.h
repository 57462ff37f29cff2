// The preparation stage (docs/design.md section 3, rules 1-3), in PyTorch's order:
// dead-code elimination (dead_code.h), then CSE when the setting `cse` is on
// (cse.h), then the tag passes that set MUST_SAVE (recompute_tags.h). The
// result is a new, validated joint graph that classification reads.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"
#include "settings/settings.h"

namespace pt {

struct PrepareResult {
  // The prepared joint graph: survivors only, node references rewritten to
  // the kept node of each CSE merge, recompute tags as the tag passes left them.
  Graph graph;
  std::vector<std::string> dead;                               // removed by dead-code elimination, graph order
  std::vector<std::pair<std::string, std::string>> merged;     // (duplicate, kept) CSE merges, graph order
  std::vector<std::pair<std::string, std::string>> must_save;  // (node, reason) MUST_SAVE set by the tag passes
};

PrepareResult prepare(const Graph& joint, const Settings& settings);

// prepare() for a caller done with the joint graph's nodes: the prepared
// graph is built from them (derive_graph_consuming), so `joint` keeps only
// its message, source, packets and name index.
PrepareResult prepare_consuming(Graph& joint, const Settings& settings);

}  // namespace pt
