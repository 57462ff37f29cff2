#include "graph/visible_text.h"

#include <cstdint>
#include <cstdio>

namespace pt {

namespace {

bool needs_escape(uint8_t b, Newlines newlines) {
  if (b == '\n') return newlines == Newlines::Escape;
  return b < 0x20 || b >= 0x7f;  // at 0x80 and above, only where not UTF-8 or C1 (see below)
}

void append_escape(std::string& out, const char* format, unsigned code) {
  char buf[12];
  std::snprintf(buf, sizeof buf, format, code);
  out += buf;
}

// The first index at or after `from` that visible_text changes, or text.size().
size_t first_escape(std::string_view text, size_t from, Newlines newlines) {
  for (size_t i = from; i < text.size(); ++i) {
    const auto b = static_cast<uint8_t>(text[i]);
    if (!needs_escape(b, newlines)) continue;
    if (b >= 0x80) {
      const size_t n = utf8_sequence_length(text, i);
      const bool c1 = n == 2 && b == 0xc2 && static_cast<uint8_t>(text[i + 1]) < 0xa0;
      if (n != 0 && !c1) {
        i += n - 1;
        continue;
      }
    }
    return i;
  }
  return text.size();
}

}  // namespace

size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto b = static_cast<uint8_t>(text[i]);
  const size_t n = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((static_cast<uint8_t>(text[i + k]) & 0xc0) != 0x80) return 0;
  }
  return n;
}

std::string visible_text(std::string_view text, Newlines newlines) {
  std::string out;
  size_t done = 0;
  for (size_t i = first_escape(text, 0, newlines); i < text.size(); i = first_escape(text, done, newlines)) {
    out.append(text.substr(done, i - done));
    const auto b = static_cast<uint8_t>(text[i]);
    done = i + 1;
    switch (b) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (b == 0xc2 && utf8_sequence_length(text, i) == 2) {  // a C1 control
          append_escape(out, "\\u%04x", static_cast<uint8_t>(text[i + 1]));
          done = i + 2;
        } else {
          append_escape(out, "\\x%02x", b);
        }
    }
  }
  out.append(text.substr(done));
  return out;
}

void make_visible(std::string& text, Newlines newlines) {
  if (first_escape(text, 0, newlines) == text.size()) return;
  text = visible_text(text, newlines);
}

}  // namespace pt
