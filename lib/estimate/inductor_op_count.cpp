#include "estimate/inductor_op_count.h"

#include <algorithm>
#include <string_view>

#include "estimate/inductor_fusible.h"

namespace pt {

int inductor_op_weight(const Graph& g, const NodeOpClasses& ops, NodeId id) {
  const std::string_view p = g[id].packet;
  if (ops.is_view(id) || p == "operator.getitem" || p == "aten.clone" || p == "aten.alias") return 0;
  if (p == "prims.convert_element_type" || p == "aten.full" || p == "aten.scalar_tensor" || p == "prims.iota" ||
      p == "aten._to_copy") {
    return 1;
  }
  // A pooling gradient's lowering visits each window that can hold the
  // element: index arithmetic, a bounds check, a load and a compare or add
  // per tap, about ten ops (inductor_fusible.h). A ResNet stem's (4 taps)
  // is realized, as Inductor's generated code shows: one kernel computes it
  // and the BatchNorm backward's reductions read it. Inlined into each of
  // them it was computed three times.
  if (const uint64_t taps = pooling_gradient_taps(g, id); taps > 0) {
    return static_cast<int>(std::min<uint64_t>(10 * taps, 100));
  }
  // The ints and floats among its args, lists included (counted at validation).
  return std::min(1 + static_cast<int>(g[id].arg_numbers), 100);
}

}  // namespace pt
