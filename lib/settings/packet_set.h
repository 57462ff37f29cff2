// A set of op packets ("aten.mm"), asked about every node by every stage.
// std::unordered_set<std::string> spent about a tenth of a 10^6-node run in
// its lookups: a bucket array, a heap node and often a heap string
// per packet, each a likely cache miss once the graph has evicted them. This
// set keeps its packets back to back in one buffer and finds them through
// one small open-addressing table of (hash, offset, length) slots, so a
// lookup touches two compact arrays. Inserts and erases (settings edits) are
// rare; an erase rebuilds the table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pt {

class PacketSet {
 public:
  // Room for `count` packets of `bytes` bytes in all without rehashing.
  void reserve(size_t count, size_t bytes);
  // Adds `packet`; false when it was there.
  bool insert(std::string_view packet);
  // Removes `packet`; false when it was not there.
  bool erase(std::string_view packet);
  void clear();
  bool contains(std::string_view packet) const;
  size_t count(std::string_view packet) const { return contains(packet) ? 1 : 0; }
  size_t size() const { return size_; }
  // Same packets, whatever the insertion order.
  friend bool operator==(const PacketSet& a, const PacketSet& b);

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t offset = 0;       // into bytes_
    uint32_t length_plus_one = 0;  // 0: empty slot
  };
  std::string_view packet_at(const Slot& s) const { return std::string_view(bytes_).substr(s.offset, s.length_plus_one - 1); }
  // The slot holding `packet`, or the empty slot where it would go.
  size_t probe(std::string_view packet, uint64_t hash) const;
  void rehash(size_t capacity);

  std::string bytes_;        // the packets, back to back
  std::vector<Slot> slots_;  // power-of-two size, at most half full
  size_t size_ = 0;
};

}  // namespace pt
