#include "report/json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "report/human_units.h"

namespace pt {

void JsonWriter::newline() {
  out_ << '\n';
  for (size_t i = 0; i < has_items_.size(); ++i) out_ << "  ";
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
  out_ << quoted(k) << ": ";
  after_key_ = true;
}

void JsonWriter::value(std::string_view s) {
  before_value();
  out_ << quoted(s);
}

void JsonWriter::value(int64_t v) {
  before_value();
  out_ << v;
}

void JsonWriter::value(uint64_t v) {
  before_value();
  out_ << v;
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
