#include "graph/node_words.h"

#include <algorithm>
#include <iterator>

namespace pt {

std::optional<OpKind> op_kind_of(std::string_view op) {
  if (op == "placeholder") return OpKind::Placeholder;
  if (op == "call_function") return OpKind::CallFunction;
  if (op == "get_attr") return OpKind::GetAttr;
  if (op == "output") return OpKind::Output;
  return std::nullopt;
}

std::optional<Recompute> recompute_of(std::string_view rc) {
  if (rc.empty()) return Recompute::None;
  if (rc == "MUST_SAVE") return Recompute::MustSave;
  if (rc == "PREFER_SAVE") return Recompute::PreferSave;
  if (rc == "MUST_RECOMPUTE") return Recompute::MustRecompute;
  if (rc == "PREFER_RECOMPUTE") return Recompute::PreferRecompute;
  return std::nullopt;
}

std::optional<PartitionerTag> partitioner_tag_of(std::string_view tag) {
  if (tag.empty()) return PartitionerTag::None;
  if (tag == "is_forward") return PartitionerTag::IsForward;
  if (tag == "is_backward") return PartitionerTag::IsBackward;
  if (tag == "must_be_in_forward") return PartitionerTag::MustBeInForward;
  if (tag == "must_be_in_backward") return PartitionerTag::MustBeInBackward;
  return std::nullopt;
}

InputKind placeholder_input_kind(std::string_view name, std::string_view target) {
  const std::string_view t = target.empty() ? name : target;
  if (t.find("tangents") != std::string_view::npos) return InputKind::Tangent;
  if (t.find("bwd_seed") != std::string_view::npos || t.find("bwd_base_offset") != std::string_view::npos) {
    return InputKind::BwdSeed;
  }
  if (t.find("fwd_seed") != std::string_view::npos || t.find("fwd_base_offset") != std::string_view::npos) {
    return InputKind::FwdSeed;
  }
  return InputKind::Primal;
}

bool is_side_effect_packet(std::string_view packet) {
  constexpr std::string_view kSideEffectPackets[] = {
      "aten._assert_scalar",         "aten._assert_async",
      "aten._assert_tensor_metadata", "aten.sym_constrain_range",
      "aten.sym_constrain_range_for_size", "profiler._record_function_enter",
      "profiler._record_function_enter_new", "profiler._record_function_exit",
      "higher_order.with_effects",
  };
  return std::find(std::begin(kSideEffectPackets), std::end(kSideEffectPackets), packet) !=
         std::end(kSideEffectPackets);
}

bool may_lack_val(OpKind op, std::string_view target) {
  return op == OpKind::Output || op == OpKind::GetAttr || target == "aten._assert_scalar.default";
}

}  // namespace pt
