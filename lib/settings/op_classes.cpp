#include "settings/op_classes.h"

#include <algorithm>
#include <span>

namespace pt {

namespace {
#include "settings/op_classes_default.inc"

template <size_t N>
PacketSet to_set(const std::string_view (&items)[N]) {
  PacketSet out;
  // Sized up front: the default classes are built several times a run (each
  // Settings holds them), and growing a set rehashes it every doubling.
  out.reserve(N);
  for (auto item : items) out.emplace(item);
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

const std::vector<std::string_view>& OpClasses::known_packets() {
  static const std::vector<std::string_view> known = [] {
    std::vector<std::string_view> out;
    for (const auto& list : {std::span<const std::string_view>(k_recomputable_ops), std::span<const std::string_view>(k_random_ops),
                             std::span<const std::string_view>(k_view_ops), std::span<const std::string_view>(k_compute_intensive_ops),
                             std::span<const std::string_view>(k_cse_rand_ops), std::span<const std::string_view>(k_pointwise_packets)}) {
      out.insert(out.end(), list.begin(), list.end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  return known;
}

}  // namespace pt
