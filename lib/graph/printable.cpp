#include "graph/printable.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace pt {

namespace {

// Length of the valid UTF-8 sequence starting at text[i] (1 to 4), or 0.
size_t utf8_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b = byte(i);
  size_t n = 0;
  if (b >= 0xc2 && b <= 0xdf) n = 2;
  else if (b >= 0xe0 && b <= 0xef) n = 3;
  else if (b >= 0xf0 && b <= 0xf4) n = 4;
  else return 0;
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  }
  return n;
}

std::string hex_escape(uint8_t b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", b);
  return buf;
}

}  // namespace

// Every node's name is asked (name_scan.cpp): 8 bytes a step, the tail as
// one more load that overlaps the last step (4 bytes, two overlapping
// loads, for names of 4-7 bytes). A byte b is a control character when
// b & 0xe0 is zero (below 0x20) or b ^ 0x7f is (DEL); the zero-byte test
// never fires on a word without a zero byte.
bool has_control_character(std::string_view text) {
  const char* p = text.data();
  const size_t n = text.size();
  auto control_in_8 = [](const char* at) {
    constexpr uint64_t kOnes = 0x0101010101010101ULL;
    uint64_t w;
    std::memcpy(&w, at, 8);
    auto zero_bytes = [](uint64_t v) { return (v - kOnes) & ~v & (0x80 * kOnes); };
    return (zero_bytes(w & (0xe0 * kOnes)) | zero_bytes(w ^ (0x7f * kOnes))) != 0;
  };
  auto control_in_4 = [](const char* at) {
    constexpr uint32_t kOnes = 0x01010101u;
    uint32_t w;
    std::memcpy(&w, at, 4);
    auto zero_bytes = [](uint32_t v) { return (v - kOnes) & ~v & (0x80 * kOnes); };
    return (zero_bytes(w & (0xe0 * kOnes)) | zero_bytes(w ^ (0x7f * kOnes))) != 0;
  };
  if (n >= 8) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
      if (control_in_8(p + i)) return true;
    }
    return control_in_8(p + n - 8);
  }
  if (n >= 4) return control_in_4(p) || control_in_4(p + n - 4);
  for (size_t i = 0; i < n; ++i) {
    const auto b = static_cast<uint8_t>(p[i]);
    if (b < 0x20 || b == 0x7f) return true;
  }
  return false;
}

std::string printable(std::string_view text, size_t max_bytes) {
  std::string out;
  size_t i = 0;
  while (i < text.size() && out.size() < max_bytes) {
    const auto b = static_cast<uint8_t>(text[i]);
    if (b >= 0x80) {
      const size_t n = utf8_length(text, i);
      if (n == 0) {
        out += hex_escape(b);
        ++i;
      } else {
        out.append(text.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (b) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      default:
        if (b < 0x20 || b == 0x7f) out += hex_escape(b);
        else out += static_cast<char>(b);
    }
    ++i;
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace pt
