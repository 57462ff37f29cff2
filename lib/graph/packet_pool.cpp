#include "graph/packet_pool.h"

namespace pt {

std::string_view PacketPool::intern(std::string_view packet) {
  const NodeId at = index_.find(packet);
  if (at >= 0) return strings_[static_cast<size_t>(at)];
  const std::string& copy = strings_.emplace_back(packet);
  index_.emplace(copy, static_cast<NodeId>(strings_.size() - 1));
  return copy;
}

}  // namespace pt
