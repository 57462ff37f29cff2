#include "prepare/cse.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "prepare/cse_key.h"
#include "prepare/mutation.h"
#include "prepare/output_alias.h"

namespace pt {

namespace {

// Nodes PyTorch copies unchanged: they neither merge nor serve as targets.
bool never_merged(const Node& n, bool aliases_output, const OpClasses& ops) {
  if (n.op != OpKind::CallFunction) return true;  // placeholder, get_attr, output
  // Random ops must draw fresh numbers each time (the list is the
  // cse_rand_ops class, editable in the settings).
  if (ops.cse_rand.count(n.packet)) return true;
  // aten.empty is uninitialized memory, and fuses into its consumer anyway.
  if (n.packet == "aten.empty") return true;
  // Outputs that went through the same ops are still distinct tensors.
  return aliases_output;
}

}  // namespace

std::vector<NodeId> cse_merge_targets(const Graph& g, const std::vector<bool>& present, const OpClasses& ops) {
  const NodeId count = g.size();
  std::vector<NodeId> kept_as(static_cast<size_t>(count));
  for (NodeId id = 0; id < count; ++id) kept_as[id] = id;
  const std::vector<bool> alias = aliases_output(g, present, ops);

  struct Seen {
    NodeId node;
    int64_t region;
  };
  std::unordered_map<std::string, Seen> seen;
  seen.reserve(static_cast<size_t>(count));
  int64_t region = 0;
  for (NodeId id = 0; id < count; ++id) {
    if (!present[id]) continue;
    if (is_mutation_node(g, id)) ++region;
    if (never_merged(g[id], alias[id], ops)) continue;
    std::optional<std::string> key = cse_key(g, id, kept_as);
    if (!key) continue;  // a NaN argument: equal to nothing
    auto [it, fresh] = seen.try_emplace(std::move(*key), Seen{id, region});
    if (fresh) continue;
    if (it->second.region == region) {
      kept_as[id] = it->second.node;
    } else {
      // Across a mutation the earlier value may differ: keep this node, and
      // let later duplicates merge into it instead.
      it->second = Seen{id, region};
    }
  }
  return kept_as;
}

}  // namespace pt
