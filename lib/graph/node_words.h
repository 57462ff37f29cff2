// The words a node record's fields may hold, mapped to the in-memory enums
// (schemas/graph.proto documents them): op, recompute, partitioner_tag, the
// placeholder naming rule that tells primals from tangents and RNG seeds, and
// the packets with side effects. Validation reads them once per node, so each
// is a few inlined length tests and byte compares. An unknown word is
// std::nullopt; the caller names the field in its error.
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>
#include <string_view>

#include "graph/graph.h"

namespace pt {

// s == literal, the literal's length known at compile time: a length test
// and an inlined compare of a few bytes, where string_view's == called
// compare() for each equal-length pair (~4 per node, 1% of a run).
template <size_t N>
bool equals_literal(std::string_view s, const char (&literal)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), literal, N - 1) == 0;
}

inline std::optional<OpKind> op_kind_of(std::string_view op) {
  if (equals_literal(op, "placeholder")) return OpKind::Placeholder;
  if (equals_literal(op, "call_function")) return OpKind::CallFunction;
  if (equals_literal(op, "get_attr")) return OpKind::GetAttr;
  if (equals_literal(op, "output")) return OpKind::Output;
  return std::nullopt;
}

// An empty recompute field is Recompute::None.
inline std::optional<Recompute> recompute_of(std::string_view rc) {
  if (rc.empty()) return Recompute::None;
  if (equals_literal(rc, "MUST_SAVE")) return Recompute::MustSave;
  if (equals_literal(rc, "PREFER_SAVE")) return Recompute::PreferSave;
  if (equals_literal(rc, "MUST_RECOMPUTE")) return Recompute::MustRecompute;
  if (equals_literal(rc, "PREFER_RECOMPUTE")) return Recompute::PreferRecompute;
  return std::nullopt;
}

// An empty partitioner_tag is PartitionerTag::None.
inline std::optional<PartitionerTag> partitioner_tag_of(std::string_view tag) {
  if (tag.empty()) return PartitionerTag::None;
  if (equals_literal(tag, "is_forward")) return PartitionerTag::IsForward;
  if (equals_literal(tag, "is_backward")) return PartitionerTag::IsBackward;
  if (equals_literal(tag, "must_be_in_forward")) return PartitionerTag::MustBeInForward;
  if (equals_literal(tag, "must_be_in_backward")) return PartitionerTag::MustBeInBackward;
  return std::nullopt;
}

// What a placeholder feeds, from its target (its name when the target is
// empty), as PyTorch's partitioner tells them apart: tangents, backward and
// forward RNG seeds and offsets; every other placeholder is a primal.
inline InputKind placeholder_input_kind(std::string_view name, std::string_view target) {
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

// Ops with side effects that dead-code elimination must keep, besides
// mutating ops (docs/design.md 3.1), by packet.
inline bool is_side_effect_packet(std::string_view packet) {
  constexpr std::string_view kSideEffectPackets[] = {
      "aten._assert_scalar",         "aten._assert_async",
      "aten._assert_tensor_metadata", "aten.sym_constrain_range",
      "aten.sym_constrain_range_for_size", "profiler._record_function_enter",
      "profiler._record_function_enter_new", "profiler._record_function_exit",
      "higher_order.with_effects",
  };
  for (const std::string_view p : kSideEffectPackets) {
    if (packet == p) return true;
  }
  return false;
}

}  // namespace pt
