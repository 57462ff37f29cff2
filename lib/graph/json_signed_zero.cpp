#include "graph/json_signed_zero.h"

namespace pt {

namespace {

// Whether a number token `-0` ends at `at` (the next character, if any,
// continues no number).
bool ends_number(std::string_view json, size_t at) {
  if (at >= json.size()) return true;
  const char c = json[at];
  return !(c >= '0' && c <= '9') && c != '.' && c != 'e' && c != 'E';
}

}  // namespace

std::optional<std::string> negative_zeros_as_decimals(std::string_view json) {
  std::optional<std::string> out;
  size_t copied = 0;  // json[0, copied) is in out
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    // A number starts after a delimiter, so a `-` outside strings starts one.
    if (c == '-' && i + 1 < json.size() && json[i + 1] == '0' && ends_number(json, i + 2)) {
      if (!out) out.emplace();
      out->append(json.substr(copied, i + 2 - copied));
      out->append(".0");
      copied = i + 2;
      ++i;
    }
  }
  if (out) out->append(json.substr(copied));
  return out;
}

}  // namespace pt
