#include "graph/printable.h"

#include <cstdint>
#include <cstdio>

#include "graph/word_scan.h"

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

// A C1 control character (U+0080 to U+009F) in UTF-8: 0xc2, then 0x80 to
// 0x9f. 0xc2 is only ever a lead byte, so each one found starts a character.
bool is_c1_control(std::string_view text, size_t i) {
  return static_cast<uint8_t>(text[i]) == 0xc2 && i + 1 < text.size() &&
         static_cast<uint8_t>(text[i + 1]) >= 0x80 && static_cast<uint8_t>(text[i + 1]) <= 0x9f;
}

bool has_c1_control(std::string_view text) {
  for (size_t i = text.find('\xc2'); i != std::string_view::npos; i = text.find('\xc2', i + 1)) {
    if (is_c1_control(text, i)) return true;
  }
  return false;
}

}  // namespace

// Every node's name is asked, a word at a time. A byte b is a C0 control
// character when b & 0xe0 is zero (below 0x20) or b ^ 0x7f is (DEL); C1
// ones are rare enough that a search for their lead byte serves.
bool has_control_character(std::string_view text) {
  using namespace word_scan;
  return has_c1_control(text) || any_word(
      text,
      [](auto w) {
        using Word = decltype(w);
        return (zero_bytes<Word>(w & bytes_of<Word>(0xe0)) | zero_bytes<Word>(w ^ bytes_of<Word>(0x7f))) != 0;
      },
      [](uint8_t b) { return b < 0x20 || b == 0x7f; });
}

std::string printable(std::string_view text, size_t max_bytes) {
  std::string out;
  size_t i = 0;
  while (i < text.size() && out.size() < max_bytes) {
    const auto b = static_cast<uint8_t>(text[i]);
    if (b >= 0x80) {
      const size_t n = utf8_length(text, i);
      if (is_c1_control(text, i)) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<uint8_t>(text[i + 1])));
        out += buf;
        i += 2;
      } else if (n == 0) {
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
