#include "graph/value_bytes_limit.h"

#include <string>

#include "graph/errors.h"
#include "graph/human_units.h"
#include "graph/printable.h"

namespace pt {

void check_value_bytes_limit(const Graph& g) {
  // Each size_bytes is below 2^62 (value_check.h) and the running total
  // stops at 2^52, so the sum itself cannot wrap.
  uint64_t total = 0;
  for (NodeId id = 0; id < g.size(); ++id) {
    total += g[id].size_bytes;
    if (total > kMaxGraphValueBytes) {
      throw InputError(g.source + ": node '" + printable(g.record(id).name()) + "': val holds " +
                       human_bytes(g[id].size_bytes) + ", which brings the graph's values to more than 2^52 bytes (" +
                       human_bytes(kMaxGraphValueBytes) + "), the most the tool sums exactly");
    }
  }
}

}  // namespace pt
