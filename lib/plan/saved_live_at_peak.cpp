#include "plan/saved_live_at_peak.h"

#include <map>

#include "analysis/node_op_classes.h"
#include "estimate/bandwidth_model.h"
#include "estimate/memory_timeline.h"

namespace pt {

std::vector<NodeId> saved_live_at_peak(const Graph& g, const PartitionResult& r, const Settings& s,
                                       const Device& device, const BandwidthOptions& o) {
  MemoryTimeline t;
  estimate_bandwidth_and_peak(g, r, s.op_classes, device, o, PassDetail::Totals, &t);
  const NodeOpClasses ops = r.node_ops ? *r.node_ops : NodeOpClasses(g, s.op_classes);
  std::map<NodeId, std::vector<NodeId>> by_buffer;
  for (NodeId id : r.extraction.saved_values) {
    if (g[id].op == OpKind::Placeholder) continue;
    NodeId root = id;
    while ((ops.is_view(root) || g[root].packet == "operator.getitem") && !g[root].inputs.empty()) {
      root = g[root].inputs[0];
    }
    by_buffer[root].push_back(id);
  }
  std::vector<NodeId> live;
  for (const LiveValue& v : live_at_peak(g, t)) {  // largest first, then by node
    if (v.category != MemoryCategory::Saved) continue;
    const auto it = by_buffer.find(v.node);
    if (it != by_buffer.end()) live.insert(live.end(), it->second.begin(), it->second.end());
  }
  return live;
}

}  // namespace pt
