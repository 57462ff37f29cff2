// The tag passes that set MUST_SAVE before classification (docs/design.md
// section 3, rule 3), in PyTorch's order (min_cut_rematerialization_partition
// after CSE):
//  1. checkpoint clean-up (cleanup_recompute_tags), only when some node is
//     MUST_RECOMPUTE or PREFER_RECOMPUTE: a recompute-tagged node used by a
//     recompute-tagged node of a later ac_graph_id (the boundary between two
//     adjacent checkpointed regions is stashed), or one with a backward hook
//     and no recompute-tagged user;
//  2. collectives (force_save_collectives): _c10d_functional ops that are not
//     recompute-tagged;
//  3. effectful ops (force_save_effectful_ops): the non-tuple results read
//     through getitems of a with_effects node that is neither
//     recompute-tagged nor tagged is_backward;
//  4. forward mutation sources (force_save_bw_mutation_src): in the trailing
//     run of copy_ nodes, the source of a must_be_in_forward copy_ into a
//     primal that a must_be_in_backward copy_ also writes.
// Each pass reads the tags as the earlier passes left them.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace pt {

struct RecomputeTagOptions {
  // Pass 2. PyTorch skips it under its config
  // unsafe_allow_optimization_of_collectives (not a Settings key yet).
  bool force_save_collectives = true;
  // cleanup_recompute_tags(is_default_partition=True): also stash untagged
  // nodes (without ac_graph_id) read by a recompute-tagged node, i.e. the
  // inputs of checkpointed regions. PyTorch does this for its default
  // partition only.
  bool default_partition = false;
};

struct TagChange {
  NodeId node = kNoNode;
  std::string reason;  // which pass, for reports
};

// The nodes whose tag the passes turn into MUST_SAVE (nodes already MUST_SAVE
// are not listed), in graph order, each with the first pass that set it.
// Reads `g` only; the caller applies the changes.
std::vector<TagChange> must_save_changes(const Graph& g, const RecomputeTagOptions& options = {});

}  // namespace pt
