#include "graph/utf8_check.h"

#include <string>
#include <vector>

#include <google/protobuf/stubs/common.h>

#include "graph/errors.h"
#include "graph/printable.h"

namespace pt {

namespace {

// The path of the first string in `m` (depth first, in field order) that is
// not UTF-8 as protobuf's binary parser checks it ("" when none):
// "args[0].list.items[1].str", "kwargs.dim.str", "op_tags[2]".
std::string invalid_utf8_field(const google::protobuf::Message& m) {
  using google::protobuf::FieldDescriptor;
  const auto* reflection = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    const auto name = [&](int k) {
      return f->is_repeated() && !f->is_map() ? f->name() + "[" + std::to_string(k) + "]" : f->name();
    };
    const int count = f->is_repeated() ? reflection->FieldSize(m, f) : 1;
    for (int k = 0; k < count; ++k) {
      if (f->type() == FieldDescriptor::TYPE_STRING) {
        const std::string text = f->is_repeated() ? reflection->GetRepeatedString(m, f, k) : reflection->GetString(m, f);
        if (!google::protobuf::internal::IsStructurallyValidUTF8(text)) return name(k);
      } else if (f->type() == FieldDescriptor::TYPE_MESSAGE) {
        const auto& sub = f->is_repeated() ? reflection->GetRepeatedMessage(m, f, k) : reflection->GetMessage(m, f);
        if (f->is_map()) {
          // An entry: its key, or its value's path under the key.
          const auto* entry = sub.GetDescriptor();
          const std::string key = sub.GetReflection()->GetString(sub, entry->field(0));
          if (!google::protobuf::internal::IsStructurallyValidUTF8(key)) return f->name() + " (a key)";
          const std::string inner = invalid_utf8_field(sub.GetReflection()->GetMessage(sub, entry->field(1)));
          if (!inner.empty()) return f->name() + "." + printable(key) + "." + inner;
          continue;
        }
        const std::string inner = invalid_utf8_field(sub);
        if (!inner.empty()) return name(k) + "." + inner;
      }
    }
  }
  return "";
}

}  // namespace

void check_utf8_strings(const proto::Graph& graph, const std::string& source) {
  for (const proto::Node& n : graph.nodes()) {
    const std::string field = invalid_utf8_field(n);
    if (!field.empty()) {
      throw InputError(source + ": node '" + printable(n.name()) + "': " + field +
                       " is not valid UTF-8 (protobuf strings must be)");
    }
  }
}

}  // namespace pt
