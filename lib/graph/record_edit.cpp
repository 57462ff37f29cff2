#include "graph/record_edit.h"

#include "graph/wire.h"

namespace pt {

namespace {

using wire::Field;
using wire::kLen;

// Field numbers of schemas/graph.proto that hold node references.
constexpr uint32_t kNodeArgs = 4, kNodeKwargs = 5;  // Node
constexpr uint32_t kArgNode = 1, kArgList = 7;      // Arg
constexpr uint32_t kListItems = 1;                  // ArgList
constexpr uint32_t kEntryValue = 2;                 // Node.kwargs entry: key = 1, value = 2

void append_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void append_len_field(std::string& out, uint32_t number, std::string_view payload) {
  append_varint(out, (uint64_t{number} << 3) | kLen);
  append_varint(out, payload.size());
  out.append(payload);
}

void append_arg(std::string_view arg, const RenameRef& rename, std::string& out);

// An ArgList's items, each rewritten.
void append_list(std::string_view list, const RenameRef& rename, std::string& out) {
  wire::for_each_field(list, [&](const Field& f, const char* at, const char* end) {
    if (f.number == kListItems && f.type == kLen) {
      std::string item;
      append_arg(f.bytes, rename, item);
      append_len_field(out, kListItems, item);
    } else {
      out.append(at, static_cast<size_t>(end - at));
    }
  });
}

// An Arg: its node reference renamed, its list's items rewritten; any
// other field as it was. (Records nest no deeper than validation allows.)
void append_arg(std::string_view arg, const RenameRef& rename, std::string& out) {
  wire::for_each_field(arg, [&](const Field& f, const char* at, const char* end) {
    if (f.number == kArgNode && f.type == kLen) {
      const std::string_view to = rename(f.bytes);
      if (!to.empty()) {
        append_len_field(out, kArgNode, to);
        return;
      }
    } else if (f.number == kArgList && f.type == kLen) {
      std::string list;
      append_list(f.bytes, rename, list);
      append_len_field(out, kArgList, list);
      return;
    }
    out.append(at, static_cast<size_t>(end - at));
  });
}

}  // namespace

std::string rename_node_refs(std::string_view record, const RenameRef& rename) {
  std::string out;
  out.reserve(record.size() + 32);
  std::string scratch;
  wire::for_each_field(record, [&](const Field& f, const char* at, const char* end) {
    if (f.number == kNodeArgs && f.type == kLen) {
      scratch.clear();
      append_arg(f.bytes, rename, scratch);
      append_len_field(out, kNodeArgs, scratch);
    } else if (f.number == kNodeKwargs && f.type == kLen) {
      // The entry's key stays; its value is an Arg.
      std::string entry;
      wire::for_each_field(f.bytes, [&](const Field& e, const char* e_at, const char* e_end) {
        if (e.number == kEntryValue && e.type == kLen) {
          scratch.clear();
          append_arg(e.bytes, rename, scratch);
          append_len_field(entry, kEntryValue, scratch);
        } else {
          entry.append(e_at, static_cast<size_t>(e_end - e_at));
        }
      });
      append_len_field(out, kNodeKwargs, entry);
    } else {
      out.append(at, static_cast<size_t>(end - at));
    }
  });
  return out;
}

std::string with_string_field(std::string_view record, uint32_t number, std::string_view value) {
  std::string out;
  out.reserve(record.size() + value.size() + 8);
  bool written = value.empty();  // an empty string is not written at all
  wire::for_each_field(record, [&](const Field& f, const char* at, const char* end) {
    if (!written && f.number > number) {
      append_len_field(out, number, value);
      written = true;
    }
    if (f.number == number && f.type == kLen) return;  // the old value
    out.append(at, static_cast<size_t>(end - at));
  });
  if (!written) append_len_field(out, number, value);
  return out;
}

}  // namespace pt
