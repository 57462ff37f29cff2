#include "graph/arena_graph.h"

#include <google/protobuf/arena.h>

namespace pt {

namespace {

google::protobuf::ArenaOptions large_blocks() {
  google::protobuf::ArenaOptions o;
  o.start_block_size = 4096;
  o.max_block_size = 1 << 20;  // protobuf's default (8 KiB) means a malloc per 8 KiB of graph
  return o;
}

struct ArenaGraph {
  google::protobuf::Arena arena{large_blocks()};
  proto::Graph* graph = google::protobuf::Arena::CreateMessage<proto::Graph>(&arena);
};

}  // namespace

std::shared_ptr<proto::Graph> new_arena_graph() {
  auto holder = std::make_shared<ArenaGraph>();
  return std::shared_ptr<proto::Graph>(holder, holder->graph);
}

}  // namespace pt
