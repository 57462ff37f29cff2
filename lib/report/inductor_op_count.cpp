#include "report/inductor_op_count.h"

#include <algorithm>
#include <string_view>

namespace pt {

namespace {

// Numbers among an argument: an int or float, or those in a list of them.
int count_numbers(const ArgView& a) {
  if (a.kind_case() == ArgView::kInt || a.kind_case() == ArgView::kFloat) return 1;
  if (a.kind_case() != ArgView::kList) return 0;
  int n = 0;
  for (const ArgView item : a.list().items()) n += count_numbers(item);
  return n;
}

}  // namespace

int inductor_op_weight(const Graph& g, const NodeOpClasses& ops, NodeId id) {
  const std::string_view p = g[id].packet;
  if (ops.is_view(id) || p == "operator.getitem" || p == "aten.clone" || p == "aten.alias") return 0;
  if (p == "prims.convert_element_type" || p == "aten.full" || p == "aten.scalar_tensor" || p == "prims.iota" ||
      p == "aten._to_copy") {
    return 1;
  }
  int numbers = 0;
  for (const ArgView a : g.record(id).args()) numbers += count_numbers(a);
  return std::min(1 + numbers, 100);
}

}  // namespace pt
