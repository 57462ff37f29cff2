#include "analysis/op_classes.h"

namespace pt {

namespace {
#include "analysis/op_classes_default.inc"

template <size_t N>
PacketSet to_set(const std::string_view (&items)[N]) {
  PacketSet out;
  for (auto item : items) out.insert(item);
  return out;
}
}  // namespace

OpClasses OpClasses::pytorch_defaults() {
  OpClasses c;
  c.recomputable = to_set(k_recomputable_ops);
  c.random = to_set(k_random_ops);
  c.view = to_set(k_view_ops);
  c.compute_intensive = to_set(k_compute_intensive_ops);
  c.cse_rand = to_set(k_cse_rand_ops);
  c.pointwise = to_set(k_pointwise_packets);
  return c;
}

}  // namespace pt
