#include "graph/wire_canonical.h"

#include <cstdint>
#include <cstring>

#include "graph/wire.h"

namespace pt::wire {

namespace {

// What one field of the schema is, as far as its canonical encoding goes.
enum class Kind : uint8_t {
  None,            // not a field of this message
  String,          // implicit presence: written only when non-empty
  StringOneof,     // oneof member: written whenever set
  StringRepeated,  // each item written, empty ones too
  Int64,           // implicit presence: written only when non-zero
  Int64Explicit,   // optional or oneof member
  Bool,            // implicit presence: written only as 1
  BoolOneof,       // oneof member: 0 or 1
  DoubleExplicit,  // optional or oneof member
  PackedInt64,     // one packed run, non-empty
  Message,         // singular message or oneof member
  MessageRepeated,
  KwargsEntry,     // map<string, Arg> entries, keys strictly ascending
};

enum class Msg : uint8_t { Node, Arg, ArgList, TensorMeta, ValueTuple, SymValue, Value, KwargsEntry };

struct FieldSpec {
  Kind kind = Kind::None;
  Msg message = Msg::Node;  // Message / MessageRepeated
};

constexpr FieldSpec spec(Msg m, uint32_t number) {
  using K = Kind;
  switch (m) {
    case Msg::Node:
      switch (number) {
        case 1: case 2: case 3: case 9: case 11: case 12: return {K::String};
        case 4: return {K::MessageRepeated, Msg::Arg};
        case 5: return {K::KwargsEntry, Msg::KwargsEntry};
        case 6: return {K::Message, Msg::Value};
        case 7: return {K::StringRepeated};
        case 8: case 13: case 14: return {K::Bool};
        case 10: return {K::Int64Explicit};
        case 15: return {K::DoubleExplicit};
        default: return {};
      }
    case Msg::Arg:
      switch (number) {
        case 1: case 5: case 8: case 9: case 10: return {K::StringOneof};
        case 2: return {K::Int64Explicit};
        case 3: return {K::DoubleExplicit};
        case 4: case 6: return {K::BoolOneof};
        case 7: return {K::Message, Msg::ArgList};
        default: return {};
      }
    case Msg::ArgList: return number == 1 ? FieldSpec{K::MessageRepeated, Msg::Arg} : FieldSpec{};
    case Msg::TensorMeta:
      switch (number) {
        case 1: case 2: return {K::PackedInt64};
        case 3: case 4: case 9: return {K::String};
        case 5: case 8: return {K::StringRepeated};
        case 6: return {K::Int64Explicit};
        case 7: return {K::Int64};
        default: return {};
      }
    case Msg::ValueTuple: return number == 1 ? FieldSpec{K::MessageRepeated, Msg::Value} : FieldSpec{};
    case Msg::SymValue:
      switch (number) {
        case 1: case 2: return {K::String};
        case 3: return {K::Int64};
        default: return {};
      }
    case Msg::Value:
      switch (number) {
        case 1: return {K::Message, Msg::TensorMeta};
        case 2: return {K::Message, Msg::ValueTuple};
        case 3: return {K::Message, Msg::SymValue};
        case 4: return {K::BoolOneof};
        case 5: return {K::StringOneof};
        default: return {};
      }
    case Msg::KwargsEntry:
      // protobuf writes both the key and the value of every entry, defaults too.
      if (number == 1) return {K::StringOneof};
      if (number == 2) return {K::Message, Msg::Arg};
      return {};
  }
  return {};
}

// spec() as a table (field numbers of the schema are below 16): the check
// looks a field up per field of every record.
constexpr int kMessages = 8, kNumbers = 16;
struct SpecTable {
  FieldSpec at[kMessages][kNumbers];
};
constexpr SpecTable make_specs() {
  SpecTable t{};
  for (int m = 0; m < kMessages; ++m) {
    for (int n = 0; n < kNumbers; ++n) t.at[m][n] = spec(static_cast<Msg>(m), static_cast<uint32_t>(n));
  }
  return t;
}
constexpr SpecTable kSpecs = make_specs();
FieldSpec lookup(Msg m, uint32_t number) {
  return number < kNumbers ? kSpecs.at[static_cast<int>(m)][number] : FieldSpec{};
}

constexpr WireType wire_type(Kind k) {
  switch (k) {
    case Kind::Int64: case Kind::Int64Explicit: case Kind::Bool: case Kind::BoolOneof: return kVarint;
    case Kind::DoubleExplicit: return kFixed64;
    default: return kLen;
  }
}

// Messages whose fields all belong to one oneof: at most one may be present.
bool is_oneof(Msg m) { return m == Msg::Arg || m == Msg::Value; }

// Nested deeper than this, protobuf decides (its recursion limit is 64
// levels from the graph; a node sits one level down).
constexpr int kMaxDepth = 48;

// A varint at p written as protobuf writes one: no redundant high bytes.
PT_WIRE_INLINE bool read_minimal_varint(const char*& p, const char* end, uint64_t& v) {
  if (p < end && static_cast<uint8_t>(*p) < 0x80) {
    v = static_cast<uint8_t>(*p++);
    return true;
  }
  const char* start = p;
  if (!read_varint(p, end, v)) return false;
  const auto n = p - start;
  if (n == 1) return true;
  const auto last = static_cast<uint8_t>(p[-1]);
  return last != 0 && (n < 10 || last == 1);
}

// Eight bytes at a time: a string is ASCII when no byte has its top bit.
bool ascii(std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t high = 0;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    high |= w;
  }
  for (; n > 0; ++p, --n) high |= static_cast<uint8_t>(*p);
  return (high & 0x8080808080808080ull) == 0;
}

bool check(Msg m, std::string_view bytes, int depth);

bool check_packed(std::string_view payload) {
  if (payload.empty()) return false;
  const char* p = payload.data();
  const char* end = p + payload.size();
  while (p < end) {
    uint64_t v = 0;
    if (!read_minimal_varint(p, end, v)) return false;
  }
  return true;
}

bool check(Msg m, std::string_view bytes, int depth) {
  if (depth > kMaxDepth) return false;
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  uint32_t last_number = 0;
  int members = 0;             // oneof members seen
  std::string_view last_key;   // kwargs: the previous entry's key
  bool any_key = false;
  while (p < end) {
    uint64_t tag = 0;
    if (!read_minimal_varint(p, end, tag) || tag > UINT32_MAX) return false;
    const auto number = static_cast<uint32_t>(tag >> 3);
    const auto type = static_cast<WireType>(tag & 7);
    const FieldSpec s = lookup(m, number);
    if (s.kind == Kind::None || type != wire_type(s.kind)) return false;  // unknown to the schema
    const bool repeats = s.kind == Kind::StringRepeated || s.kind == Kind::MessageRepeated ||
                         s.kind == Kind::KwargsEntry;
    if (number < last_number || (number == last_number && !repeats)) return false;
    if (number != last_number && is_oneof(m) && ++members > 1) return false;
    last_number = number;
    uint64_t v = 0;
    switch (type) {
      case kVarint:
        if (!read_minimal_varint(p, end, v)) return false;
        if ((s.kind == Kind::Int64 && v == 0) || (s.kind == Kind::Bool && v != 1) || (s.kind == Kind::BoolOneof && v > 1)) {
          return false;
        }
        break;
      case kFixed64:
        if (end - p < 8) return false;
        p += 8;
        break;
      case kLen: {
        if (!read_minimal_varint(p, end, v) || v > static_cast<uint64_t>(end - p)) return false;
        const std::string_view payload(p, static_cast<size_t>(v));
        p += v;
        switch (s.kind) {
          case Kind::String:
            if (payload.empty() || !ascii(payload)) return false;
            break;
          case Kind::StringOneof: case Kind::StringRepeated:
            if (!ascii(payload)) return false;
            break;
          case Kind::PackedInt64:
            if (!check_packed(payload)) return false;
            break;
          case Kind::Message: case Kind::MessageRepeated:
            if (!check(s.message, payload, depth + 1)) return false;
            break;
          case Kind::KwargsEntry: {
            // Exactly the key, then the value.
            const std::string_view key = string_field(payload, 1);
            if (!check(Msg::KwargsEntry, payload, depth + 1) || payload.size() < 2 || payload[0] != '\x0a') return false;
            if (any_key && !(last_key < key)) return false;
            Field value;
            if (!find_field(payload, 2, kLen, value)) return false;
            last_key = key;
            any_key = true;
            break;
          }
          default:
            return false;
        }
        break;
      }
      default:
        return false;
    }
  }
  if (m == Msg::KwargsEntry) {
    // Both fields, key first (check() above saw them in order).
    return bytes.size() >= 2 && bytes[0] == '\x0a' && last_number == 2;
  }
  return true;
}

}  // namespace

bool is_canonical_node(std::string_view record) { return check(Msg::Node, record, 0); }

}  // namespace pt::wire
