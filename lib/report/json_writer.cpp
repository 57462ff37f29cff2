#include "report/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "graph/word_scan.h"
#include "graph/human_units.h"
#include "graph/visible_text.h"

namespace pt {

namespace {

// A 10^6-node report is ~50 MB of JSON: append each token to the buffer,
// instead of building a std::string per string and going through operator<<
// per character or per number .

// Whether any of the 16 bytes at p is a C0 control character, '"', '\\',
// DEL or not ASCII (which may be a C1 control or not UTF-8: quoted() looks),
// in GCC's portable vector types (SSE2 on x86-64).
bool escape_in_16(const char* p) {
  using Bytes = unsigned char __attribute__((vector_size(16)));
  using Words = uint64_t __attribute__((vector_size(16)));
  Bytes b;
  std::memcpy(&b, p, 16);
  const Bytes hit = (b < 0x20) | (b == '"') | (b == '\\') | (b >= 0x7f);  // all ones in each such lane
  Words w;
  std::memcpy(&w, &hit, 16);
  return (w[0] | w[1]) != 0;
}

// The strings are names, op targets and save reasons (5-130 bytes; a
// 10^6-node report has 10^5 saved values, each with its reason). Sixteen
// bytes a step, the tail as one more load that overlaps the last step;
// strings under 16 bytes a word at a time (word_scan.h). An 8-byte scan
// with a byte loop for the tail was 41% of a 10^5-node JSON report's
// instructions (callgrind; a byte-by-byte scan was a third of writing a
// report before that).
bool needs_escape(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n >= 16) {
    for (size_t i = 0; i + 16 <= n; i += 16) {
      if (escape_in_16(p + i)) return true;
    }
    return escape_in_16(p + n - 16);
  }
  using namespace word_scan;
  return any_word(
      s,
      [](auto w) {
        using Word = decltype(w);
        // A byte b is below 0x20 exactly when b & 0xe0 is zero, 0x80 or
        // above when b & 0x80 is not.
        return (zero_bytes<Word>(w & bytes_of<Word>(0xe0)) | zero_bytes<Word>(w ^ bytes_of<Word>('"')) |
                zero_bytes<Word>(w ^ bytes_of<Word>('\\')) | zero_bytes<Word>(w ^ bytes_of<Word>(0x7f)) |
                (w & bytes_of<Word>(0x80))) != 0;
      },
      [](uint8_t b) { return b == '"' || b == '\\' || b < 0x20 || b >= 0x7f; });
}

template <typename Int>
std::string_view integer_text(char (&buf)[24], Int v) {
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  return std::string_view(buf, static_cast<size_t>(end - buf));
}

}  // namespace

void JsonWriter::flush() {
  if (size_ == 0) return;
  out_.write(buf_.data(), static_cast<std::streamsize>(size_));
  size_ = 0;
}

void JsonWriter::write_string(std::string_view s) {
  if (needs_escape(s) || (compact_ && s.find('<') != std::string_view::npos)) {
    put(quoted(s, compact_));
    return;
  }
  char* p = extend(s.size() + 2);
  p[0] = '"';
  if (!s.empty()) std::memcpy(p + 1, s.data(), s.size());
  p[s.size() + 1] = '"';
}

void JsonWriter::newline() {
  // A newline and two spaces per open container.
  if (compact_) return;
  const size_t width = 1 + 2 * has_items_.size();
  char* p = extend(width);
  p[0] = '\n';
  std::memset(p + 1, ' ', width - 1);
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) put(',');
    has_items_.back() = true;
    newline();
  }
}

void JsonWriter::begin_object() {
  before_value();
  put('{');
  has_items_.push_back(false);
}

void JsonWriter::end_object() {
  const bool had = has_items_.back();
  has_items_.pop_back();
  if (had) newline();
  put('}');
  if (has_items_.empty()) put('\n');
  maybe_flush();
}

void JsonWriter::begin_array() {
  before_value();
  put('[');
  has_items_.push_back(false);
}

void JsonWriter::end_array() {
  const bool had = has_items_.back();
  has_items_.pop_back();
  if (had) newline();
  put(']');
  if (has_items_.empty()) put('\n');
  maybe_flush();
}

void JsonWriter::key(std::string_view k) {
  before_value();
  write_string(k);
  char* p = extend(2);
  p[0] = ':';
  p[1] = ' ';
  after_key_ = true;
}

void JsonWriter::value(std::string_view s) {
  before_value();
  write_string(s);
  maybe_flush();
}

void JsonWriter::value(int64_t v) {
  before_value();
  char buf[24];
  put(integer_text(buf, v));
  maybe_flush();
}

void JsonWriter::value(uint64_t v) {
  before_value();
  char buf[24];
  put(integer_text(buf, v));
  maybe_flush();
}

void JsonWriter::value(bool v) {
  before_value();
  put(v ? std::string_view("true") : std::string_view("false"));
  maybe_flush();
}

void JsonWriter::value(double v) {
  before_value();
  if (std::isfinite(v)) {
    put(count_number(v));  // 1.2, not 1.1999999999999999; 2000000, not 2e+06
  } else {
    put(std::string_view("null"));
  }
  maybe_flush();
}

void JsonWriter::null_value() {
  before_value();
  put(std::string_view("null"));
  maybe_flush();
}

std::string JsonWriter::quoted(std::string_view s, bool escape_lt) {
  std::string out = "\"";
  const auto escape = [&out](unsigned code) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", code);
    out += buf;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto b = static_cast<uint8_t>(c);
    if (b == 0x7f) {  // DEL and the C1 controls escaped like C0: no terminal acts on them
      escape(b);
      continue;
    }
    if (b >= 0x80) {
      // A byte that is not UTF-8 (a path from the command line) as U+FFFD:
      // a JSON text is UTF-8.
      const size_t n = utf8_sequence_length(s, i);
      if (n == 0) {
        out += "\\ufffd";
      } else if (b == 0xc2 && static_cast<uint8_t>(s[i + 1]) < 0xa0) {  // U+0080-U+009F
        escape(static_cast<uint8_t>(s[i + 1]));
        i += 1;
      } else {
        out.append(s.substr(i, n));
        i += n - 1;
      }
      continue;
    }
    switch (c) {
      case '<':
        if (escape_lt) out += "\\u003c";
        else out += c;
        break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (b < 0x20) {
          escape(b);
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace pt
