// A small streaming JSON writer for machine-readable output (reports):
// indented, strings escaped, integers written exactly (no 64-bit-as-string
// rule here: these are our own documents, not protobuf's JSON mapping).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace pt {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

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

  static std::string quoted(std::string_view s);

 private:
  void before_value();
  void newline();

  std::ostream& out_;
  // One entry per open container: whether it has any element yet.
  std::vector<bool> has_items_;
  bool after_key_ = false;
};

}  // namespace pt
