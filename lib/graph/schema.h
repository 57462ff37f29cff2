// The generated protobuf schema (schemas/graph.proto), under pt::proto.
#pragma once

#include "graph.pb.h"

namespace pt {
namespace proto = ::partition_tool::proto;
}  // namespace pt
