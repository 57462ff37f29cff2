// Messages that live on a protobuf arena: parsing or copying a
// million-node graph then costs a few large allocations instead of millions
// of small ones, and freeing it is one pass over the arena's blocks. The
// shared_ptr owns the arena.
#pragma once

#include <memory>

#include <google/protobuf/arena.h>

#include "graph/schema.h"

namespace pt {

// Blocks from 4 KiB up to 1 MiB (protobuf's default of 8 KiB at most means
// a malloc per 8 KiB of graph).
google::protobuf::ArenaOptions large_arena_blocks();

template <class Message>
std::shared_ptr<Message> new_arena_message() {
  struct Holder {
    google::protobuf::Arena arena{large_arena_blocks()};
    Message* message = google::protobuf::Arena::CreateMessage<Message>(&arena);
  };
  auto holder = std::make_shared<Holder>();
  return std::shared_ptr<Message>(holder, holder->message);
}

inline std::shared_ptr<proto::Graph> new_arena_graph() { return new_arena_message<proto::Graph>(); }

}  // namespace pt
