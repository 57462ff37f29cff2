// A Graph message that lives on a protobuf arena: parsing or copying a
// million-node graph then costs a few large allocations instead of millions
// of small ones, and freeing it is one pass over the arena's blocks. The
// shared_ptr owns the arena.
#pragma once

#include <memory>

#include "graph/schema.h"

namespace pt {

std::shared_ptr<proto::Graph> new_arena_graph();

}  // namespace pt
