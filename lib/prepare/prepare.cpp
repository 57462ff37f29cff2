#include "prepare/prepare.h"

#include "prepare/cse.h"
#include "prepare/dead_code.h"
#include "prepare/derived_graph.h"
#include "prepare/recompute_tags.h"

namespace pt {

namespace {

PrepareResult prepare_graph(const Graph& joint, const Settings& settings, Graph* consume) {
  PrepareResult r;
  const Flags live = live_nodes(joint);
  std::vector<NodeId> kept_as;
  if (settings.cse) {
    kept_as = cse_merge_targets(joint, live, settings.op_classes);
  } else {
    kept_as.resize(static_cast<size_t>(joint.size()));
    for (NodeId id = 0; id < joint.size(); ++id) kept_as[id] = id;
  }
  Flags keep(static_cast<size_t>(joint.size()), false);
  for (NodeId id = 0; id < joint.size(); ++id) {
    if (!live[id]) {
      r.dead.push_back(std::string(joint[id].name));
    } else if (kept_as[id] != id) {
      r.merged.emplace_back(joint[id].name, joint[kept_as[id]].name);
    } else {
      keep[id] = true;
    }
  }

  DerivedGraph derived = consume ? derive_graph_consuming(*consume, keep, kept_as)
                                 : derive_graph(joint, keep, kept_as);

  // The tag passes read the prepared graph (its users reflect the merges);
  // their changes are written into both the indexed nodes and their proto
  // nodes.
  for (const TagChange& c : must_save_changes(derived.graph)) {
    set_recompute_tag(derived, c.node, Recompute::MustSave, "MUST_SAVE");
    r.must_save.emplace_back(derived.graph[c.node].name, c.reason);
  }
  r.graph = std::move(derived.graph);
  return r;
}

}  // namespace

PrepareResult prepare(const Graph& joint, const Settings& settings) {
  return prepare_graph(joint, settings, nullptr);
}

PrepareResult prepare_consuming(Graph& joint, const Settings& settings) {
  return prepare_graph(joint, settings, &joint);
}

}  // namespace pt
