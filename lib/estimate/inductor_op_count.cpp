#include "estimate/inductor_op_count.h"

#include <algorithm>
#include <string_view>

namespace pt {

int inductor_op_weight(const Graph& g, const NodeOpClasses& ops, NodeId id) {
  const std::string_view p = g[id].packet;
  if (ops.is_view(id) || p == "operator.getitem" || p == "aten.clone" || p == "aten.alias") return 0;
  if (p == "prims.convert_element_type" || p == "aten.full" || p == "aten.scalar_tensor" || p == "prims.iota" ||
      p == "aten._to_copy") {
    return 1;
  }
  // The ints and floats among its args, lists included (counted at validation).
  return std::min(1 + static_cast<int>(g[id].arg_numbers), 100);
}

}  // namespace pt
