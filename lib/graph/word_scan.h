// Byte-class tests over a string a word at a time, for the scans that read
// every name, target and report string: the ASCII check of canonical
// records (wire_canonical.cpp), the name scan's control characters
// (printable.cpp) and the JSON writer's escapes (json_writer.cpp). Each
// ended its strings byte by byte, a fifth to two fifths of its instructions
// (docs/performance.md).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace pt::word_scan {

// 0x0101...01 in a word of this width.
template <class Word>
inline constexpr Word kOnes = static_cast<Word>(~Word{0}) / 0xff;

// Every byte of a word equal to `b`.
template <class Word>
constexpr Word bytes_of(uint8_t b) {
  return kOnes<Word> * b;
}

// Nonzero exactly when some byte of `w` is zero (the classic test: it never
// fires on a word without a zero byte).
template <class Word>
constexpr Word zero_bytes(Word w) {
  return (w - kOnes<Word>) & ~w & bytes_of<Word>(0x80);
}

template <class Word>
Word load(const char* p) {
  Word w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// Whether `hit` holds for some word covering `s`: 8-byte words a step, the
// last one overlapping the step before, so that no string ends in a byte
// loop; two overlapping 4-byte words for strings of 4-7 bytes; `hit_byte`
// on each byte of shorter ones. `hit` takes a uint64_t and a uint32_t (a
// generic lambda), and answers for the word's bytes, each as hit_byte would.
template <class Hit, class HitByte>
bool any_word(std::string_view s, const Hit& hit, const HitByte& hit_byte) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n >= 8) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
      if (hit(load<uint64_t>(p + i))) return true;
    }
    return hit(load<uint64_t>(p + n - 8));
  }
  if (n >= 4) return hit(load<uint32_t>(p)) || hit(load<uint32_t>(p + n - 4));
  for (size_t i = 0; i < n; ++i) {
    if (hit_byte(static_cast<uint8_t>(p[i]))) return true;
  }
  return false;
}

}  // namespace pt::word_scan
