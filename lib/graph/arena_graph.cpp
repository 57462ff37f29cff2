#include "graph/arena_graph.h"

namespace pt {

google::protobuf::ArenaOptions large_arena_blocks() {
  google::protobuf::ArenaOptions o;
  o.start_block_size = 4096;
  o.max_block_size = 1 << 20;
  return o;
}

}  // namespace pt
