#include "graph/wire_canonical.h"

#include <cstdint>

#include "graph/wire.h"
#include "graph/word_scan.h"

namespace pt::wire {

namespace {

// One function per message of schemas/graph.proto, each a switch on the
// field's tag byte. Every field number of the schema is below 16, so a
// canonical tag is one byte; a byte with its top bit set is a field the
// schema lacks or a redundant encoding, neither canonical. (A generic,
// table-driven loop was 1,750 instructions a node on gpt2_124m; this is
// about half.)
//
// What "canonical" asks of a field, as protobuf's deterministic
// serialization writes it:
// - fields in number order; a singular field once; a oneof's member alone;
// - an implicit-presence string only when non-empty, an implicit-presence
//   bool only as 1, an implicit-presence integer only when non-zero;
//   optional and oneof members whenever set, whatever their value;
// - varints (tags and lengths included) without redundant high bytes;
// - repeated integers packed in one non-empty run;
// - map entries as key then value, both written, keys strictly ascending;
// - strings plain ASCII (our own rule: UTF-8 checks stay protobuf's).

constexpr uint8_t tag_of(uint32_t number, WireType type) { return static_cast<uint8_t>((number << 3) | type); }

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

// A length prefix as protobuf writes one, and its payload within the
// message; p ends past the payload.
PT_WIRE_INLINE bool read_payload(const char*& p, const char* end, std::string_view& payload) {
  uint64_t n = 0;
  if (!read_minimal_varint(p, end, n) || n > static_cast<uint64_t>(end - p)) return false;
  payload = std::string_view(p, static_cast<size_t>(n));
  p += n;
  return true;
}

// A string is ASCII when no byte has its top bit (a word at a time).
bool ascii(std::string_view s) {
  using namespace word_scan;
  return !any_word(
      s, [](auto w) { return (w & bytes_of<decltype(w)>(0x80)) != 0; }, [](uint8_t b) { return b >= 0x80; });
}

// A singular field's number must be above the previous field's; a
// repeated field's may equal it.
PT_WIRE_INLINE bool in_order(uint32_t number, bool repeats, uint32_t& last_number) {
  if (number < last_number || (number == last_number && !repeats)) return false;
  last_number = number;
  return true;
}

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

bool check_arg(std::string_view bytes, int depth);
bool check_value(std::string_view bytes, int depth);

// A message whose one field is a repeated message, number 1 (ArgList's
// items, ValueTuple's items): each item as `item` checks it.
template <bool (*item)(std::string_view, int)>
bool check_items(std::string_view bytes, int depth) {
  if (depth > kMaxDepth) return false;
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  std::string_view payload;
  while (p < end) {
    if (static_cast<uint8_t>(*p++) != tag_of(1, kLen) || !read_payload(p, end, payload) ||
        !item(payload, depth + 1)) {
      return false;
    }
  }
  return true;
}

// Arg: one member of its oneof, or none (an empty message).
bool check_arg(std::string_view bytes, int depth) {
  if (depth > kMaxDepth) return false;
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  if (p == end) return true;
  const auto tag = static_cast<uint8_t>(*p++);
  std::string_view payload;
  uint64_t v = 0;
  switch (tag) {
    case tag_of(1, kLen): case tag_of(5, kLen): case tag_of(8, kLen): case tag_of(9, kLen): case tag_of(10, kLen):
      return read_payload(p, end, payload) && p == end && ascii(payload);  // node, str, dtype, device, repr
    case tag_of(2, kVarint):  // int
      return read_minimal_varint(p, end, v) && p == end;
    case tag_of(3, kFixed64):  // float
      return end - p == 8;
    case tag_of(4, kVarint): case tag_of(6, kVarint):  // bool, none: 0 or 1
      return end - p == 1 && static_cast<uint8_t>(*p) <= 1;
    case tag_of(7, kLen):  // list
      return read_payload(p, end, payload) && p == end && check_items<check_arg>(payload, depth + 1);
    default:
      return false;
  }
}

// TensorMeta.
bool check_tensor(std::string_view bytes, int depth) {
  if (depth > kMaxDepth) return false;
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  uint32_t last_number = 0;
  std::string_view payload;
  while (p < end) {
    const auto tag = static_cast<uint8_t>(*p++);
    const uint32_t number = tag >> 3;
    if (!in_order(number, number == 5 || number == 8, last_number)) return false;  // shape_expr, stride_expr repeat
    uint64_t v = 0;
    switch (tag) {
      case tag_of(1, kLen): case tag_of(2, kLen):  // shape, stride
        if (!read_payload(p, end, payload) || !check_packed(payload)) return false;
        break;
      case tag_of(3, kLen): case tag_of(4, kLen): case tag_of(9, kLen):  // dtype, device, storage_offset_expr
        if (!read_payload(p, end, payload) || payload.empty() || !ascii(payload)) return false;
        break;
      case tag_of(5, kLen): case tag_of(8, kLen):  // shape_expr, stride_expr items (empty ones too)
        if (!read_payload(p, end, payload) || !ascii(payload)) return false;
        break;
      case tag_of(6, kVarint):  // storage (optional: any value)
        if (!read_minimal_varint(p, end, v)) return false;
        break;
      case tag_of(7, kVarint):  // storage_offset
        if (!read_minimal_varint(p, end, v) || v == 0) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

// SymValue: kind, expr, hint.
bool check_sym(std::string_view bytes, int depth) {
  if (depth > kMaxDepth) return false;
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  uint32_t last_number = 0;
  std::string_view payload;
  while (p < end) {
    const auto tag = static_cast<uint8_t>(*p++);
    if (!in_order(tag >> 3, false, last_number)) return false;
    uint64_t v = 0;
    switch (tag) {
      case tag_of(1, kLen): case tag_of(2, kLen):
        if (!read_payload(p, end, payload) || payload.empty() || !ascii(payload)) return false;
        break;
      case tag_of(3, kVarint):
        if (!read_minimal_varint(p, end, v) || v == 0) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

// Value: one member of its oneof, or none.
bool check_value(std::string_view bytes, int depth) {
  if (depth > kMaxDepth) return false;
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  if (p == end) return true;
  const auto tag = static_cast<uint8_t>(*p++);
  std::string_view payload;
  switch (tag) {
    case tag_of(1, kLen):
      return read_payload(p, end, payload) && p == end && check_tensor(payload, depth + 1);
    case tag_of(2, kLen):
      return read_payload(p, end, payload) && p == end && check_items<check_value>(payload, depth + 1);
    case tag_of(3, kLen):
      return read_payload(p, end, payload) && p == end && check_sym(payload, depth + 1);
    case tag_of(4, kVarint):  // none: 0 or 1
      return end - p == 1 && static_cast<uint8_t>(*p) <= 1;
    case tag_of(5, kLen):  // opaque
      return read_payload(p, end, payload) && p == end && ascii(payload);
    default:
      return false;
  }
}

// A kwargs map entry: exactly the key (written even when empty), then the
// value (an Arg, written even when empty). Sets `key`.
bool check_entry(std::string_view bytes, int depth, std::string_view& key) {
  if (depth > kMaxDepth) return false;
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  std::string_view value;
  return p < end && static_cast<uint8_t>(*p++) == tag_of(1, kLen) && read_payload(p, end, key) && ascii(key) &&
         p < end && static_cast<uint8_t>(*p++) == tag_of(2, kLen) && read_payload(p, end, value) && p == end &&
         check_arg(value, depth + 1);
}

// Node.
bool check_node(std::string_view bytes) {
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  uint32_t last_number = 0;
  std::string_view last_key;  // kwargs: the previous entry's key
  bool any_key = false;
  std::string_view payload;
  while (p < end) {
    const auto tag = static_cast<uint8_t>(*p++);
    const uint32_t number = tag >> 3;
    if (!in_order(number, number == 4 || number == 5 || number == 7, last_number)) return false;  // args, kwargs, op_tags
    uint64_t v = 0;
    switch (tag) {
      // name, op, target, recompute, partitioner_tag, module_path
      case tag_of(1, kLen): case tag_of(2, kLen): case tag_of(3, kLen): case tag_of(9, kLen): case tag_of(11, kLen):
      case tag_of(12, kLen):
        if (!read_payload(p, end, payload) || payload.empty() || !ascii(payload)) return false;
        break;
      case tag_of(4, kLen):  // args
        if (!read_payload(p, end, payload) || !check_arg(payload, 1)) return false;
        break;
      case tag_of(5, kLen): {  // kwargs
        std::string_view key;
        if (!read_payload(p, end, payload) || !check_entry(payload, 1, key)) return false;
        if (any_key && !(last_key < key)) return false;
        last_key = key;
        any_key = true;
        break;
      }
      case tag_of(6, kLen):  // val
        if (!read_payload(p, end, payload) || !check_value(payload, 1)) return false;
        break;
      case tag_of(7, kLen):  // op_tags items (empty ones too)
        if (!read_payload(p, end, payload) || !ascii(payload)) return false;
        break;
      case tag_of(8, kVarint): case tag_of(13, kVarint): case tag_of(14, kVarint):  // mutable, impure, has_backward_hook
        if (p == end || *p != 1) return false;
        ++p;
        break;
      case tag_of(10, kVarint):  // ac_graph_id (optional: any value)
        if (!read_minimal_varint(p, end, v)) return false;
        break;
      case tag_of(15, kFixed64):  // memory_budget (optional: any value)
        if (end - p < 8) return false;
        p += 8;
        break;
      default:
        return false;
    }
  }
  return true;
}

}  // namespace

bool is_canonical_node(std::string_view record) { return check_node(record); }

}  // namespace pt::wire
