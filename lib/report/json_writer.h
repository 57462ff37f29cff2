// A small streaming JSON writer for machine-readable output (reports):
// indented, strings escaped, integers written exactly (no 64-bit-as-string
// rule here: these are our own documents, not protobuf's JSON mapping).
// Text goes to a buffer that reaches the stream in large pieces: when it
// outgrows kFlushBytes, when the top-level value ends, and on destruction.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "graph/flags.h"

namespace pt {

// Compact: no newlines or indentation, and '<' in strings written as \u003c:
// data embedded in a page's <script> element, where indentation was most of
// the bytes and where no string may close the element. Written straight
// into the page, it needs no copy of its own.
enum class JsonLayout { Indented, Compact };

// The version every JSON document of the tool carries as "schema_version"
// (reports, diff, sweep, inspect, explain): raised when a field changes
// meaning or goes away, not when one is added.
inline constexpr int kJsonSchemaVersion = 1;

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out, JsonLayout layout = JsonLayout::Indented)
      : out_(out), compact_(layout == JsonLayout::Compact) {}
  ~JsonWriter() { flush(); }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  // Inside an object: the key of the next value.
  void key(std::string_view k);

  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(int64_t v);
  void value(uint64_t v);
  void value(int v) { value(static_cast<int64_t>(v)); }
  void value(bool v);
  void value(double v);
  void null_value();

  template <typename T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }

  // `s` as a JSON string; with `escape_lt`, '<' as \u003c (Compact).
  static std::string quoted(std::string_view s, bool escape_lt = false);

 private:
  void before_value();
  void newline();
  void write_string(std::string_view s);
  // Passes the buffer on when it is large or the document is complete.
  void maybe_flush() {
    if (size_ >= kFlushBytes || has_items_.empty()) flush();
  }
  void flush();
  // Room for `n` more bytes at the end of the pending output, which the
  // caller fills: a token is one size check and its bytes copied (a
  // std::string append per piece, several per token, was ~300
  // instructions a key on gpt2_124m's report).
  char* extend(size_t n) {
    const size_t at = size_;
    if (at + n > buf_.size()) buf_.resize(std::max(2 * buf_.size(), at + n));
    size_ = at + n;
    return buf_.data() + at;
  }
  void put(char c) { *extend(1) = c; }
  void put(std::string_view s) {
    if (!s.empty()) std::memcpy(extend(s.size()), s.data(), s.size());
  }

  // An ostream write costs a sentry and a virtual call or two per token,
  // which was half of writing a report (callgrind, gpt2_124m); a string
  // append is a bounds check and a copy. 64 KiB keeps the buffer in cache
  // and a 50 MB report (10^6 nodes) from being held twice.
  static constexpr size_t kFlushBytes = 64 * 1024;

  std::ostream& out_;
  bool compact_ = false;
  std::string buf_ = std::string(kFlushBytes + 4096, '\0');  // buf_[0, size_) is pending output
  size_t size_ = 0;
  // One entry per open container: whether it has any element yet.
  Flags has_items_;
  bool after_key_ = false;
};

}  // namespace pt
