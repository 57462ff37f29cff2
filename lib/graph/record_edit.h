// Edits of a node record at the wire level: the record written back is the
// one protobuf's deterministic serialization would write for the edited
// message (fields in number order, empty strings left out), without
// parsing the record into a message.
//
// Why: preparing a graph rewrites a few nodes (CSE renames the inputs of a
// merged node's readers; recompute tags change a field). Through protobuf
// that was a parse, an edit and a serialization per node: 13,600
// instructions a node, 1.7M of gpt2_124m's 46.5M for its 128 rewritten
// nodes (issue 7).
//
// The input must be a record node_records.h hands out (canonical or
// protobuf's own serialization); the output then is one too.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace pt {

// The name a node reference is to read instead: an empty view keeps it.
using RenameRef = std::function<std::string_view(std::string_view name)>;

// `record` with every node reference in its args and kwargs (nested lists
// included) passed through `rename`.
std::string rename_node_refs(std::string_view record, const RenameRef& rename);

// `record` with its string field `number` (a singular string of Node, such
// as recompute = 9) set to `value`; an empty value removes it, as protobuf
// leaves an empty string out.
std::string with_string_field(std::string_view record, uint32_t number, std::string_view value);

}  // namespace pt
