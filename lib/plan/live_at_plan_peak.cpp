#include "plan/live_at_plan_peak.h"

#include <algorithm>
#include <array>
#include <map>

#include "analysis/node_op_classes.h"
#include "estimate/bandwidth_model.h"
#include "estimate/memory_timeline.h"
#include "graph/human_units.h"

namespace pt {

LiveAtPeak live_at_plan_peak(const Graph& g, const PartitionResult& r, const Settings& s, const Device& device,
                             const BandwidthOptions& o) {
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
  LiveAtPeak live;
  live.values = live_at_peak(g, t);  // largest first, then by node
  for (const LiveValue& v : live.values) {
    live.bytes[static_cast<size_t>(v.category)] += v.bytes;
    if (v.category != MemoryCategory::Saved) continue;
    const auto it = by_buffer.find(v.node);
    if (it != by_buffer.end()) live.saved.insert(live.saved.end(), it->second.begin(), it->second.end());
  }
  return live;
}

std::string live_at_peak_text(const Graph& g, const LiveAtPeak& live) {
  constexpr size_t kNamed = 3;
  std::array<size_t, kMemoryCategoryCount> order{};
  for (size_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return live.bytes[a] > live.bytes[b]; });
  std::string out;
  for (size_t c : order) {
    if (live.bytes[c] == 0) continue;
    const auto category = static_cast<MemoryCategory>(c);
    std::string names;
    size_t count = 0;
    for (const LiveValue& v : live.values) {
      if (v.category != category) continue;
      if (count++ < kNamed) {
        names += (names.empty() ? "" : ", ") + std::string(g[v.node].name) + " " + human_bytes(v.bytes);
      }
    }
    if (count > kNamed) names += " and " + std::to_string(count - kNamed) + " more";
    out += (out.empty() ? "" : "; ") + std::string(memory_category_name(category)) + " " + human_bytes(live.bytes[c]) +
           " (" + names + ")";
  }
  return out.empty() ? "nothing" : out;
}

}  // namespace pt
