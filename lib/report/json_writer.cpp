#include "report/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "report/human_units.h"

namespace pt {

namespace {

// A 10^6-node report is ~50 MB of JSON: append each token to the buffer,
// instead of building a std::string per string and going through operator<<
// per character or per number (issue 7).

// Whether any of the 8 bytes at p is a control character, '"' or '\\'.
bool escape_in_8(const char* p) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  // Nonzero exactly when some byte of `w` is zero (the classic test; it
  // never fires on a word without a zero byte).
  auto zero_bytes = [](uint64_t w) { return (w - kOnes) & ~w & kHigh; };
  uint64_t w = 0;
  std::memcpy(&w, p, 8);
  // A byte b is below 0x20 exactly when b & 0xe0 is zero.
  return (zero_bytes(w & (0xe0 * kOnes)) | zero_bytes(w ^ ('"' * kOnes)) | zero_bytes(w ^ ('\\' * kOnes))) != 0;
}

// The same for 16 bytes, in GCC's portable vector types (SSE2 on x86-64).
bool escape_in_16(const char* p) {
  using Bytes = unsigned char __attribute__((vector_size(16)));
  using Words = uint64_t __attribute__((vector_size(16)));
  Bytes b;
  std::memcpy(&b, p, 16);
  const Bytes hit = (b < 0x20) | (b == '"') | (b == '\\');  // all ones in each such lane
  Words w;
  std::memcpy(&w, &hit, 16);
  return (w[0] | w[1]) != 0;
}

// The strings are names, op targets and save reasons (5-130 bytes; a
// 10^6-node report has 10^5 saved values, each with its reason). Sixteen
// bytes a step, and the tail as one more load that overlaps the last step
// (8 bytes: two overlapping loads), so no string ends byte by byte: an
// 8-byte scan with a byte loop for the tail was 41% of a 10^5-node JSON
// report's instructions (callgrind; a byte-by-byte scan was a third of
// writing a report before that).
bool needs_escape(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n >= 16) {
    for (size_t i = 0; i + 16 <= n; i += 16) {
      if (escape_in_16(p + i)) return true;
    }
    return escape_in_16(p + n - 16);
  }
  if (n >= 8) return escape_in_8(p) || escape_in_8(p + n - 8);
  for (size_t i = 0; i < n; ++i) {
    const char c = p[i];
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return true;
  }
  return false;
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
  if (needs_escape(s)) {
    put(quoted(s));
    return;
  }
  char* p = extend(s.size() + 2);
  p[0] = '"';
  if (!s.empty()) std::memcpy(p + 1, s.data(), s.size());
  p[s.size() + 1] = '"';
}

void JsonWriter::newline() {
  // A newline and two spaces per open container.
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
    put(shortest_number(v));  // 1.2, not 1.1999999999999999
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

std::string JsonWriter::quoted(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace pt
