// Reading protobuf wire bytes in place: a field cursor, and read-only views
// of the schema's Node, Arg, Value, TensorMeta and SymValue over a node's
// serialized record (schemas/graph.proto).
//
// Why: a 10^6-node graph parsed into protobuf messages took 1,077 bytes of
// arena per node and 7,000 instructions per node (issue 7); the graph's
// nodes are now kept as the bytes they arrived in (node_records.h) and read
// through these views, which allocate nothing. A view's accessors are named
// as the generated message's, so the stages read a node as they read the
// message before.
//
// The views assume a record that is well formed and holds each singular
// field (and each oneof) at most once: the records node_records.h hands out
// are either checked canonical (wire_canonical.h) or protobuf's own
// serialization. Fields they do not know, or that come with another wire
// type, are skipped, as protobuf keeps them as unknown fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>
#include <utility>

namespace pt::wire {

// The cursor's per-field step and the one-byte varint are the inner loop of
// every view; GCC kept them out of line (a call per field: 6M of gpt2_124m's
// 57M instructions).
#define PT_WIRE_INLINE inline __attribute__((always_inline))

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

// The multi-byte case of read_varint.
inline bool read_varint_slow(const char*& p, const char* end, uint64_t& value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70 && p < end; shift += 7) {
    const auto b = static_cast<uint8_t>(*p++);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) {
      value = v;
      return true;
    }
  }
  return false;
}

// A varint at p (p < end); false when it runs past `end` or past 10 bytes.
// Tags, lengths and most values are one byte: that case is inline.
PT_WIRE_INLINE bool read_varint(const char*& p, const char* end, uint64_t& value) {
  if (p < end && static_cast<uint8_t>(*p) < 0x80) {
    value = static_cast<uint8_t>(*p++);
    return true;
  }
  return read_varint_slow(p, end, value);
}

struct Field {
  uint32_t number = 0;
  WireType type = kVarint;
  uint64_t varint = 0;     // kVarint; the raw bits for kFixed64/kFixed32
  std::string_view bytes;  // kLen: the payload
};

// The fields of one message, in order. Assumes well-formed bytes (groups,
// kept by protobuf as unknown fields, are skipped whole).
class FieldCursor {
 public:
  explicit FieldCursor(std::string_view message) : p_(message.data()), end_(message.data() + message.size()) {}

  // Where the next field starts.
  const char* pos() const { return p_; }

  PT_WIRE_INLINE bool next(Field& f) {
    if (p_ >= end_) return false;
    uint64_t tag = 0;
    if (!read_varint(p_, end_, tag)) return stop();
    f.number = static_cast<uint32_t>(tag >> 3);
    f.type = static_cast<WireType>(tag & 7);
    if (f.type == kLen) {
      uint64_t len = 0;
      if (!read_varint(p_, end_, len) || len > static_cast<uint64_t>(end_ - p_)) return stop();
      f.bytes = std::string_view(p_, static_cast<size_t>(len));
      p_ += len;
      return true;
    }
    if (f.type == kVarint) return read_varint(p_, end_, f.varint) || stop();
    return next_other(f);
  }

 private:
  bool stop() {
    p_ = end_;
    return false;
  }
  bool next_other(Field& f);
  bool skip_group(uint32_t number);
  const char* p_;
  const char* end_;
};

inline bool FieldCursor::next_other(Field& f) {
  switch (f.type) {
    case kFixed64:
      if (end_ - p_ < 8) return stop();
      std::memcpy(&f.varint, p_, 8);
      p_ += 8;
      return true;
    case kFixed32: {
      if (end_ - p_ < 4) return stop();
      uint32_t v = 0;
      std::memcpy(&v, p_, 4);
      f.varint = v;
      p_ += 4;
      return true;
    }
    case kStartGroup:
      if (!skip_group(f.number)) return stop();
      return next(f);  // an unknown group: not a field the views read
    default:
      return stop();
  }
}

inline bool FieldCursor::skip_group(uint32_t number) {
  int depth = 1;
  while (p_ < end_) {
    uint64_t tag = 0, v = 0;
    if (!read_varint(p_, end_, tag)) return false;
    switch (tag & 7) {
      case kVarint: if (!read_varint(p_, end_, v)) return false; break;
      case kFixed64: p_ += 8; break;
      case kFixed32: p_ += 4; break;
      case kLen:
        if (!read_varint(p_, end_, v) || v > static_cast<uint64_t>(end_ - p_)) return false;
        p_ += v;
        break;
      case kStartGroup: ++depth; break;
      case kEndGroup:
        if (--depth == 0) return (tag >> 3) == number;
        break;
      default: return false;
    }
  }
  return false;
}

// Calls visit(field, start, end) for each field of a message, in order
// (start and end: where the whole field, tag included, lies).
template <typename Visit>
PT_WIRE_INLINE void for_each_field(std::string_view message, const Visit& visit) {
  FieldCursor c(message);
  Field f;
  const char* at = c.pos();
  while (c.next(f)) {
    visit(f, at, c.pos());
    at = c.pos();
  }
}

// One repeated field's occurrences: stored records write them one after
// another (protobuf serializes fields in number order), so a view notes
// where the run starts and ends, and how many, in its one scan.
struct Run {
  const char* begin = nullptr;
  const char* end = nullptr;
  int count = 0;
  // Called for each occurrence, with where it starts and ends.
  void add(const char* at, const char* after) {
    if (count++ == 0) begin = at;
    end = after;
  }
};

// The payload of field `number` with wire type `type` (the first one), or
// nothing.
inline bool find_field(std::string_view message, uint32_t number, WireType type, Field& out) {
  FieldCursor c(message);
  Field f;
  while (c.next(f)) {
    if (f.number == number && f.type == type) {
      out = f;
      return true;
    }
  }
  return false;
}
inline std::string_view string_field(std::string_view message, uint32_t number) {
  Field f;
  return find_field(message, number, kLen, f) ? f.bytes : std::string_view();
}
inline uint64_t varint_field(std::string_view message, uint32_t number) {
  Field f;
  return find_field(message, number, kVarint, f) ? f.varint : 0;
}

// What the views' iterators share: a forward iterator over values made on
// the fly (reference = value), advanced by the derived class's advance(),
// equal where they stand at the same byte (nullptr: the end).
template <typename Derived, typename Value>
class ForwardIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Value;
  Derived& operator++() {
    self().advance();
    return self();
  }
  Derived operator++(int) {
    Derived before = self();
    self().advance();
    return before;
  }
  bool operator==(const ForwardIterator& o) const { return at_ == o.at_; }

 protected:
  const char* at_ = nullptr;  // where the current value starts; nullptr at the end

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

// The occurrences of one length-delimited field in a Run, as T(bytes).
template <typename T>
class Repeated {
 public:
  Repeated() = default;
  explicit Repeated(const Run& run) : run_(run) {}

  class iterator : public ForwardIterator<iterator, T> {
   public:
    iterator() = default;
    iterator(const char* p, const char* end) : cursor_(std::string_view(p, static_cast<size_t>(end - p))) {
      advance();
    }
    T operator*() const { return T(field_.bytes); }

   private:
    friend class ForwardIterator<iterator, T>;
    using ForwardIterator<iterator, T>::at_;
    void advance() {
      at_ = cursor_.pos();
      while (cursor_.next(field_)) {
        if (field_.type == kLen) return;
        at_ = cursor_.pos();
      }
      at_ = nullptr;
    }
    FieldCursor cursor_{std::string_view()};
    Field field_;
  };

  iterator begin() const { return run_.count == 0 ? iterator() : iterator(run_.begin, run_.end); }
  iterator end() const { return iterator(); }
  int size() const { return run_.count; }
  bool empty() const { return run_.count == 0; }
  T operator[](int k) const {
    auto it = begin();
    for (int i = 0; i < k; ++i) ++it;
    return *it;
  }

 private:
  Run run_;
};

// The run of field `number` (length-delimited) in a message.
inline Run find_run(std::string_view message, uint32_t number) {
  Run run;
  for_each_field(message, [&](const Field& f, const char* at, const char* end) {
    if (f.number == number && f.type == kLen) run.add(at, end);
  });
  return run;
}

// A packed repeated int64 field (one occurrence, as protobuf writes it; an
// unpacked or split field is re-encoded before it reaches a view).
class PackedInt64 {
 public:
  PackedInt64() = default;
  explicit PackedInt64(std::string_view payload) : payload_(payload) {}

  class iterator : public ForwardIterator<iterator, int64_t> {
   public:
    iterator() = default;
    iterator(const char* p, const char* end) : p_(p), end_(end) { advance(); }
    int64_t operator*() const { return value_; }

   private:
    friend class ForwardIterator<iterator, int64_t>;
    void advance() {
      at_ = p_;
      if (p_ == end_ || p_ == nullptr) {
        at_ = nullptr;
        return;
      }
      uint64_t v = 0;
      if (!read_varint(p_, end_, v)) {
        at_ = nullptr;
        return;
      }
      value_ = static_cast<int64_t>(v);
    }
    const char* p_ = nullptr;
    const char* end_ = nullptr;
    int64_t value_ = 0;
  };

  iterator begin() const { return iterator(payload_.data(), payload_.data() + payload_.size()); }
  iterator end() const { return iterator(); }
  int size() const {
    // Each varint ends with one byte below 0x80.
    int n = 0;
    for (char c : payload_) n += static_cast<uint8_t>(c) < 0x80;
    return n;
  }
  bool empty() const { return payload_.empty(); }
  int64_t operator[](int k) const {
    auto it = begin();
    for (int i = 0; i < k; ++i) ++it;
    return *it;
  }

 private:
  std::string_view payload_;
};

}  // namespace pt::wire
