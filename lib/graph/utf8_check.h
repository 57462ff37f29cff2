// Text and JSON parsers let through strings that are not UTF-8 (a raw 0xff
// in a .pbtxt string), which binary protobuf cannot hold: a graph read from
// them is refused as a binary file with such strings is, naming the node
// and the field.
#pragma once

#include <string>

#include "graph/schema.h"

namespace pt {

// Throws InputError naming `source`, the node and the field of the first
// node string that is not valid UTF-8.
void check_utf8_strings(const proto::Graph& graph, const std::string& source);

}  // namespace pt
