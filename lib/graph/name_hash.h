// A fast hash for the short strings the tool looks up by the million: node
// names ("add_123"), op packets ("aten.mm"), CSE keys. std::hash (murmur,
// out of line) was the top symbol of a 10^6-node run; this one is
// inline, reads 8-byte words, mixes each by multiply and rotate, and ends
// with an avalanche so the low bits (a table's slot index) depend on every
// byte. Not for untrusted-input hash flooding: the tables here hold names
// from one graph file, and the worst case is slow, never wrong.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace pt {

inline uint64_t name_hash(std::string_view s) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;  // 2^64 / golden ratio
  auto word = [&s](size_t at, size_t n) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + at, n);
    return w;
  };
  uint64_t h = s.size() * kMul;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) h = std::rotl((h ^ word(i, 8)) * kMul, 29);
  if (i < s.size()) h = std::rotl((h ^ word(i, s.size() - i)) * kMul, 29);
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ULL;
  h ^= h >> 29;
  return h;
}

}  // namespace pt
