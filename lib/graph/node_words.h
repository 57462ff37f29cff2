// The words a node's fields may hold, read into the in-memory enums
// (schemas/graph.proto documents them), and what a node's kind and target
// say about it. An unknown word is std::nullopt; validation names the field
// in its error.
#pragma once

#include <optional>
#include <string_view>

#include "graph/graph.h"

namespace pt {

std::optional<OpKind> op_kind_of(std::string_view op);

// An empty recompute field is Recompute::None.
std::optional<Recompute> recompute_of(std::string_view rc);

// An empty partitioner_tag is PartitionerTag::None.
std::optional<PartitionerTag> partitioner_tag_of(std::string_view tag);

// What a placeholder feeds, from its target (its name when the target is
// empty), as PyTorch's partitioner tells them apart: tangents, backward and
// forward RNG seeds and offsets; every other placeholder is a primal.
InputKind placeholder_input_kind(std::string_view name, std::string_view target);

// Ops with side effects that dead-code elimination must keep, besides
// mutating ops (docs/design.md, dead-code elimination), by packet.
bool is_side_effect_packet(std::string_view packet);

// The nodes PyTorch's partitioner reads without a val (its _size_of counts
// them 0 bytes): the output node, get_attr (a subgraph of a higher-order op)
// and the runtime asserts; it refuses any other node without one.
bool may_lack_val(OpKind op, std::string_view target);

}  // namespace pt
