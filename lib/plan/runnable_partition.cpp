#include "plan/runnable_partition.h"

#include <algorithm>

#include "graph/errors.h"
#include "plan/plan_candidate.h"

namespace pt {

namespace {

// `saved` with each tuple replaced by its getitems, sorted and unique: a
// tuple cannot be saved whole (the forward outputs its items).
void items_not_tuples(const Graph& g, std::vector<NodeId>& saved) {
  std::vector<NodeId> items;
  std::erase_if(saved, [&](NodeId id) {
    if (g[id].value_kind != ValueKind::Tuple) return false;
    for (NodeId u : g.users[id]) {
      if (g[u].packet == "operator.getitem") items.push_back(u);
    }
    return true;
  });
  saved.insert(saved.end(), items.begin(), items.end());
  std::sort(saved.begin(), saved.end());
  saved.erase(std::unique(saved.begin(), saved.end()), saved.end());
}

}  // namespace

PartitionResult partition_runnable(const Graph& g, const PartitionResult& lent, const Flags& runnable,
                                   std::vector<NodeId> saved) {
  items_not_tuples(g, saved);
  for (;;) {
    PartitionResult r = partition_with_saved(g, lent, saved);
    std::vector<NodeId> banned;
    for (NodeId id : r.extraction.recomputed) {
      if (!runnable[id]) banned.push_back(id);
    }
    if (banned.empty()) return r;
    const size_t before = saved.size();
    saved.insert(saved.end(), banned.begin(), banned.end());
    items_not_tuples(g, saved);
    if (saved.size() == before) {
      throw InfeasibleError("the extraction recomputes a value that may not be recomputed");
    }
  }
}

}  // namespace pt
