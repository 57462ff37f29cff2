// One copy of each distinct op packet of a graph, for Node::packet to view.
// Every stage asks about every node's packet; when the packet viewed the
// node's own target string in the protobuf message, each question was a
// cache miss into a 10^6-node message. A graph has a few hundred distinct
// packets: interned, they stay in cache, and NodeOpClasses tells them apart
// by address.
#pragma once

#include <deque>
#include <string>
#include <string_view>

#include "graph/name_index.h"

namespace pt {

class PacketPool {
 public:
  // The pooled copy of `packet` (added on first sight); stable for the
  // pool's lifetime.
  std::string_view intern(std::string_view packet);

 private:
  std::deque<std::string> strings_;  // a deque never moves its elements
  NameIndex index_;                  // packet -> its position in strings_
};

}  // namespace pt
