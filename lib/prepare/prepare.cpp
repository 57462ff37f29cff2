#include "prepare/prepare.h"

#include <memory>

#include "graph/validate.h"
#include "prepare/cse.h"
#include "prepare/dead_code.h"
#include "prepare/rebuild.h"
#include "prepare/recompute_tags.h"

namespace pt {

PrepareResult prepare(const Graph& joint, const Settings& settings) {
  PrepareResult r;
  const std::vector<bool> live = live_nodes(joint);
  std::vector<NodeId> kept_as;
  if (settings.cse) {
    kept_as = cse_merge_targets(joint, live, settings.op_classes);
  } else {
    kept_as.resize(static_cast<size_t>(joint.size()));
    for (NodeId id = 0; id < joint.size(); ++id) kept_as[id] = id;
  }
  std::vector<bool> keep(static_cast<size_t>(joint.size()), false);
  for (NodeId id = 0; id < joint.size(); ++id) {
    if (!live[id]) {
      r.dead.push_back(joint[id].name);
    } else if (kept_as[id] != id) {
      r.merged.emplace_back(joint[id].name, joint[kept_as[id]].name);
    } else {
      keep[id] = true;
    }
  }

  std::shared_ptr<proto::Graph> message = rebuild_message(joint, keep, kept_as);
  r.graph = validate(message, joint.source);

  // The tag passes read the prepared graph (its users reflect the merges);
  // their changes are written into both the message and the indexed nodes,
  // which validation does not depend on.
  for (const TagChange& c : must_save_changes(r.graph)) {
    Node& n = r.graph.nodes[c.node];
    n.recompute = Recompute::MustSave;
    message->mutable_nodes(n.proto_index)->set_recompute("MUST_SAVE");
    r.must_save.emplace_back(n.name, c.reason);
  }
  return r;
}

}  // namespace pt
