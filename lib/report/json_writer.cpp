#include "report/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "report/human_units.h"

namespace pt {

namespace {

// A 10^6-node report is ~50 MB of JSON: write straight into the stream, one
// write per token, instead of building a std::string per string and going
// through operator<< per character or per number (issue 7).

bool needs_escape(std::string_view s) {
  for (const char c : s) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return true;
  }
  return false;
}

void write_string(std::ostream& out, std::string_view s) {
  if (needs_escape(s)) {
    out << JsonWriter::quoted(s);
    return;
  }
  out.put('"');
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
  out.put('"');
}

template <typename Int>
void write_integer(std::ostream& out, Int v) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.write(buf, end - buf);
}

}  // namespace

void JsonWriter::newline() {
  // A newline and two spaces per open container.
  static constexpr std::string_view kIndent = "\n                                ";
  size_t width = 1 + 2 * has_items_.size();
  out_.write(kIndent.data(), static_cast<std::streamsize>(std::min(width, kIndent.size())));
  for (width -= std::min(width, kIndent.size()); width > 0; --width) out_.put(' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_ << ',';
    has_items_.back() = true;
    newline();
  }
}

void JsonWriter::begin_object() {
  before_value();
  out_ << '{';
  has_items_.push_back(false);
}

void JsonWriter::end_object() {
  const bool had = has_items_.back();
  has_items_.pop_back();
  if (had) newline();
  out_ << '}';
  if (has_items_.empty()) out_ << '\n';
}

void JsonWriter::begin_array() {
  before_value();
  out_ << '[';
  has_items_.push_back(false);
}

void JsonWriter::end_array() {
  const bool had = has_items_.back();
  has_items_.pop_back();
  if (had) newline();
  out_ << ']';
  if (has_items_.empty()) out_ << '\n';
}

void JsonWriter::key(std::string_view k) {
  before_value();
  write_string(out_, k);
  out_.write(": ", 2);
  after_key_ = true;
}

void JsonWriter::value(std::string_view s) {
  before_value();
  write_string(out_, s);
}

void JsonWriter::value(int64_t v) {
  before_value();
  write_integer(out_, v);
}

void JsonWriter::value(uint64_t v) {
  before_value();
  write_integer(out_, v);
}

void JsonWriter::value(bool v) {
  before_value();
  out_ << (v ? "true" : "false");
}

void JsonWriter::value(double v) {
  before_value();
  if (!std::isfinite(v)) {
    out_ << "null";
    return;
  }
  out_ << shortest_number(v);  // 1.2, not 1.1999999999999999
}

void JsonWriter::null_value() {
  before_value();
  out_ << "null";
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
