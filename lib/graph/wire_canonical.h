// Whether a serialized Node is canonical: exactly the bytes protobuf's
// deterministic serialization writes for the message protobuf parses from
// them, with every string plain ASCII. Such a record is kept as it arrived
// and read through node_view.h; any other (unknown fields, a repeated
// singular field, an unpacked shape, a default value written out, unsorted
// kwargs, non-ASCII text, deep nesting) is parsed by protobuf and
// re-serialized, so protobuf alone decides what is valid and what the bytes
// mean. The check is sound, not complete: "false" only costs that detour.
#pragma once

#include <string_view>

namespace pt::wire {

bool is_canonical_node(std::string_view record);

}  // namespace pt::wire
