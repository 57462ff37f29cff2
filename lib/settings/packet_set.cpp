#include "settings/packet_set.h"

#include "graph/name_hash.h"

namespace pt {

size_t PacketSet::probe(std::string_view packet, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t k = hash & mask;; k = (k + 1) & mask) {
    const Slot& s = slots_[k];
    if (s.length_plus_one == 0 || (s.hash == hash && packet_at(s) == packet)) return k;
  }
}

void PacketSet::rehash(size_t capacity) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(capacity, Slot{});
  for (const Slot& s : old) {
    if (s.length_plus_one != 0) slots_[probe(packet_at(s), s.hash)] = s;
  }
}

void PacketSet::reserve(size_t count, size_t bytes) {
  size_t capacity = 16;
  while (capacity < 2 * count) capacity *= 2;  // at most half full, as insert keeps it
  if (capacity > slots_.size()) rehash(capacity);
  bytes_.reserve(bytes);
}

bool PacketSet::insert(std::string_view packet) {
  // At most half full: probes stay short.
  if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
  const uint64_t hash = name_hash(packet);
  Slot& s = slots_[probe(packet, hash)];
  if (s.length_plus_one != 0) return false;
  s = Slot{hash, static_cast<uint32_t>(bytes_.size()), static_cast<uint32_t>(packet.size() + 1)};
  bytes_.append(packet);
  ++size_;
  return true;
}

bool PacketSet::erase(std::string_view packet) {
  if (!contains(packet)) return false;
  // Rare (a settings edit): rebuild from the other packets.
  std::vector<std::string> rest;
  for (const Slot& s : slots_) {
    if (s.length_plus_one != 0 && packet_at(s) != packet) rest.emplace_back(packet_at(s));
  }
  clear();
  for (const auto& p : rest) insert(p);
  return true;
}

void PacketSet::clear() {
  bytes_.clear();
  slots_.clear();
  size_ = 0;
}

bool PacketSet::contains(std::string_view packet) const {
  if (size_ == 0) return false;
  return slots_[probe(packet, name_hash(packet))].length_plus_one != 0;
}

bool operator==(const PacketSet& a, const PacketSet& b) {
  if (a.size_ != b.size_) return false;
  for (const auto& s : a.slots_) {
    if (s.length_plus_one != 0 && !b.contains(a.packet_at(s))) return false;
  }
  return true;
}

}  // namespace pt
