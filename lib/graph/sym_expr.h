// The grammar of symbolic expressions in a graph: TensorMeta.shape_expr,
// stride_expr and storage_offset_expr, and SymValue.expr. They are what
// PyTorch prints for a SymInt, SymFloat or SymBool (sympy's text form with
// PyTorch's own functions), e.g. "s17", "512", "2*s0 + 1", "(s0//2)",
// "Max(1, s0)", "Eq(s0, 4)", "s0 < 5", "1.0*s0", "Piecewise((1, s0 > 2), (0, True))".
//
//   expr     := operand (binop operand)*
//   operand  := prefix* primary
//   prefix   := '-' | '+' | '~'
//   primary  := number | name | name '(' list ')' | '(' list ')'
//   list     := expr (',' expr)*
//   binop    := + - * / // % ** < <= > >= == != & |
//   number   := digits ['.' digits*] [('e'|'E') ['+'|'-'] digits]
//   name     := [A-Za-z_][A-Za-z0-9_]*
// with spaces allowed between tokens. Anything else (an empty text, an
// operator without an operand, unbalanced parentheses, other characters,
// control characters, non-ASCII) is refused.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pt {

// Why `text` is not a symbolic expression ("ends after an operator",
// "unexpected ')' at character 4"), or "" when it is one.
std::string sym_expr_problem(std::string_view text);

// The value of `text` when it is a plain non-negative integer literal
// ("512"), else std::nullopt: such an entry must equal its hint.
std::optional<int64_t> sym_expr_integer(std::string_view text);

}  // namespace pt
