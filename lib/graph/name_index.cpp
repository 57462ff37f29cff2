#include "graph/name_index.h"

#include "graph/name_hash.h"

namespace pt {

void NameIndex::reserve(size_t count) {
  // At most three quarters full: linear probes stay short (a found name
  // takes 2.5 probes at worst, 1.2 to 2 at the sizes a reserve gives). At
  // most half full, gpt2_l96's table was 1 MiB where 512 KiB does: 128
  // fresh pages and cache misses on every lookup.
  size_t capacity = 16;
  while (capacity * 3 < 4 * count) capacity *= 2;
  if (capacity > slots_.size()) grow(capacity);
}

void NameIndex::grow(size_t capacity) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(capacity, Slot{});
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (!s.data) continue;
    size_t k = name_hash({s.data, s.length}) & mask;
    while (slots_[k].data) k = (k + 1) & mask;
    slots_[k] = s;
  }
}

std::pair<NodeId, bool> NameIndex::emplace(std::string_view name, NodeId id) {
  return emplace(name, id, name_hash(name));
}

std::pair<NodeId, bool> NameIndex::emplace(std::string_view name, NodeId id, uint64_t hash) {
  if (4 * (size_ + 1) > 3 * slots_.size()) grow(slots_.empty() ? 16 : 2 * slots_.size());
  const size_t mask = slots_.size() - 1;
  for (size_t k = hash & mask;; k = (k + 1) & mask) {
    Slot& s = slots_[k];
    if (!s.data) {
      // An empty name still needs a non-null marker.
      s = Slot{name.data() ? name.data() : "", static_cast<uint32_t>(name.size()), id};
      ++size_;
      return {id, true};
    }
    if (std::string_view(s.data, s.length) == name) return {s.id, false};
  }
}

NodeId NameIndex::find(std::string_view name) const { return find(name, name_hash(name)); }

NodeId NameIndex::find(std::string_view name, uint64_t hash) const {
  if (slots_.empty()) return -1;
  const size_t mask = slots_.size() - 1;
  for (size_t k = hash & mask;; k = (k + 1) & mask) {
    const Slot& s = slots_[k];
    if (!s.data) return -1;
    if (std::string_view(s.data, s.length) == name) return s.id;
  }
}

}  // namespace pt
