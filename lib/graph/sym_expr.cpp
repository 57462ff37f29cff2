#include "graph/sym_expr.h"

#include <charconv>
#include <cstdint>

namespace pt {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

// The length of the binary operator at text[i], or 0.
size_t binary_operator_length(std::string_view text, size_t i) {
  const std::string_view rest = text.substr(i);
  for (const std::string_view op : {"//", "**", "<=", ">=", "==", "!="}) {
    if (rest.starts_with(op)) return 2;
  }
  for (const char op : {'+', '-', '*', '/', '%', '<', '>', '&', '|'}) {
    if (rest.front() == op) return 1;
  }
  return 0;
}

// The length of the number at text[i] (a digit), fraction and exponent included.
size_t number_length(std::string_view text, size_t i) {
  size_t j = i;
  while (j < text.size() && is_digit(text[j])) ++j;
  if (j < text.size() && text[j] == '.') {
    ++j;
    while (j < text.size() && is_digit(text[j])) ++j;
  }
  if (j < text.size() && (text[j] == 'e' || text[j] == 'E')) {
    size_t k = j + 1;
    if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
    if (k < text.size() && is_digit(text[k])) {
      while (k < text.size() && is_digit(text[k])) ++k;
      j = k;
    }
  }
  return j - i;
}

std::string at(const char* what, std::string_view text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  const std::string shown = c >= 0x20 && c < 0x7f ? "'" + std::string(1, text[i]) + "'" : "a byte outside printable ASCII";
  return std::string(what) + " " + shown + " at character " + std::to_string(i + 1);
}

}  // namespace

// One pass, no recursion: `operand` says whether an operand comes next,
// `depth` counts the open parentheses (commas belong inside one).
std::string sym_expr_problem(std::string_view text) {
  bool operand = true;
  size_t depth = 0;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ') {
      ++i;
      continue;
    }
    if (operand) {
      if (c == '-' || c == '+' || c == '~') {
        ++i;
      } else if (c == '(') {
        ++depth, ++i;
      } else if (is_digit(c)) {
        i += number_length(text, i);
        operand = false;
      } else if (is_name_start(c)) {
        while (i < text.size() && is_name_char(text[i])) ++i;
        if (i < text.size() && text[i] == '(') ++depth, ++i;  // a call: its arguments come next
        else operand = false;
      } else {
        return at("expected a number, a name or '(' but found", text, i);
      }
      continue;
    }
    if (c == ')') {
      if (depth == 0) return at("unbalanced", text, i);
      --depth, ++i;
    } else if (c == ',') {
      if (depth == 0) return at("unexpected", text, i);
      operand = true, ++i;
    } else if (const size_t n = binary_operator_length(text, i); n > 0) {
      operand = true, i += n;
    } else {
      return at("expected an operator, ',' or ')' but found", text, i);
    }
  }
  if (text.find_first_not_of(' ') == std::string_view::npos) return "is empty";
  if (operand) return "ends where an operand is expected";
  if (depth > 0) return "leaves " + std::to_string(depth) + " '(' unclosed";
  return "";
}

std::optional<int64_t> sym_expr_integer(std::string_view text) {
  if (text.empty() || !is_digit(text.front())) return std::nullopt;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace pt
