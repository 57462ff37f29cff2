// The grammar of symbolic expressions (lib/graph/sym_expr.h): what PyTorch
// prints for symbolic sizes, strides and scalars is accepted, anything else
// refused with the reason; validation names the field and checks constant
// entries against their hints.
#include <doctest/doctest.h>

#include <string>

#include "graph/sym_expr.h"
#include "graph/validation_error.h"

TEST_CASE("expressions PyTorch prints are accepted") {
  for (const char* text : {"s17", "512", "0", "2*s0", "s0 + 1", "s0*s1 + 2*s2 - 7", "(s0//2)", "((s0 + 1)//2)",
                           "Max(1, s0)", "Min(s0, s1 - 1)", "Eq(s0, 4)", "Ne(u0, 0)", "s0 < 5", "s0 <= 5",
                           "s0 >= 5", "s0 > 5", "s0 == 5", "s0 != 5", "(s0 < 5) & (s1 > 2)", "(s0 < 5) | True",
                           "~(s0 < 5)", "-s0", "-s0 + 8", "1.0*s0", "0.500000000000000*s0", "1.0e-5*s0",
                           "s0**2", "s0 % 8", "Mod(s0, 8)", "FloorDiv(s0, 2)", "CeilToInt(IntTrueDiv(s0, 3))",
                           "ToFloat(s0)/2", "Piecewise((1, s0 > 2), (0, True))", "int_oo", "-oo", "True", "zuf0",
                           "  s0  "}) {
    CAPTURE(text);
    CHECK(pt::sym_expr_problem(text) == "");
  }
}

TEST_CASE("malformed expressions are refused with the reason") {
  const struct {
    const char* text;
    const char* problem;
  } cases[] = {
      {"", "is empty"},
      {"   ", "is empty"},
      {"s0 +", "ends where an operand is expected"},
      {"s0 + + ", "ends where an operand is expected"},
      {"Max(s0,", "ends where an operand is expected"},
      {"(s0", "leaves 1 '(' unclosed"},
      {"Max((s0, 1)", "leaves 1 '(' unclosed"},
      {"s0)", "unbalanced ')' at character 3"},
      {"s0 s1", "expected an operator, ',' or ')' but found 's' at character 4"},
      {"2 3", "expected an operator, ',' or ')' but found '3' at character 3"},
      {"s0, s1", "unexpected ',' at character 3"},
      {"()", "expected a number, a name or '(' but found ')' at character 2"},
      {"Max()", "expected a number, a name or '(' but found ')' at character 5"},
      {"*s0", "expected a number, a name or '(' but found '*' at character 1"},
      {"s0 ^ 2", "expected an operator, ',' or ')' but found '^' at character 4"},
      {"s0; rm -rf /", "expected an operator, ',' or ')' but found ';' at character 3"},
      {"'s0'", "expected a number, a name or '(' but found ''' at character 1"},
      {"s0\n", "expected an operator, ',' or ')' but found a byte outside printable ASCII at character 3"},
      {"s0\xc2\x85", "expected an operator, ',' or ')' but found a byte outside printable ASCII at character 3"},
      {"s\xc3\xa9", "expected an operator, ',' or ')' but found a byte outside printable ASCII at character 2"},
      {"s0 === 1", "expected a number, a name or '(' but found '=' at character 6"},
      {"torch.sym_int(s0)", "expected an operator, ',' or ')' but found '.' at character 6"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK(pt::sym_expr_problem(c.text) == c.problem);
  }
  // Deep parentheses: no recursion, so no stack to exhaust.
  const std::string deep = std::string(1'000'000, '(') + "s0" + std::string(1'000'000, ')');
  CHECK(pt::sym_expr_problem(deep) == "");
  CHECK(pt::sym_expr_problem(deep + ")") == "unbalanced ')' at character 2000003");
}

TEST_CASE("plain integer entries are read as their value") {
  CHECK(pt::sym_expr_integer("512") == 512);
  CHECK(pt::sym_expr_integer("0") == 0);
  CHECK_FALSE(pt::sym_expr_integer("s0").has_value());
  CHECK_FALSE(pt::sym_expr_integer("-1").has_value());
  CHECK_FALSE(pt::sym_expr_integer("2*s0").has_value());
  CHECK_FALSE(pt::sym_expr_integer("1.0").has_value());
  CHECK_FALSE(pt::sym_expr_integer(" 512").has_value());
  CHECK_FALSE(pt::sym_expr_integer("99999999999999999999").has_value());
}

namespace {

std::string error_of(const std::string& tensor_fields, const std::string& sym = R"(kind: "int" expr: "s0" hint: 2)") {
  const std::string pbtxt = R"(
    nodes { name: "s0" op: "placeholder" target: "primals_1" val { sym { )" + sym + R"( } } }
    nodes { name: "x" op: "placeholder" target: "primals_2" val { tensor { dtype: "float32" )" + tensor_fields + R"( } } }
    nodes { name: "output" op: "output" target: "output" args { list { items { node: "x" } items { none: true } items { none: true } } } }
    num_fwd_outputs: 1
  )";
  return pt::test::validation_error(pbtxt);
}

}  // namespace

TEST_CASE("validation names the field of a malformed expression") {
  const std::string ok = R"(shape: [2, 512] stride: [512, 1] shape_expr: ["s0", "512"] stride_expr: ["512", "1"])";
  CHECK(error_of(ok) == "");
  CHECK(error_of(ok + R"( storage_offset: 0 storage_offset_expr: "0")") == "");
  CHECK(error_of(ok + R"( storage_offset: 4 storage_offset_expr: "2*s0")") == "");
  CHECK(error_of(R"(shape: [2, 512] shape_expr: ["s0 +", "512"])") ==
        "g.pbtxt: node 'x': val.tensor.shape_expr[0] = 's0 +' is not a symbolic expression: ends where an operand is "
        "expected");
  CHECK(error_of(R"(shape: [2, 512] shape_expr: ["s0", ""])") ==
        "g.pbtxt: node 'x': val.tensor.shape_expr[1] = '' is not a symbolic expression: is empty");
  CHECK(error_of(R"(shape: [2, 512] stride: [512, 1] stride_expr: ["512", "(1"])") ==
        "g.pbtxt: node 'x': val.tensor.stride_expr[1] = '(1' is not a symbolic expression: leaves 1 '(' unclosed");
  CHECK(error_of(R"(shape: [2] stride: [1] storage_offset_expr: "s0 s0")") ==
        "g.pbtxt: node 'x': val.tensor.storage_offset_expr = 's0 s0' is not a symbolic expression: expected an "
        "operator, ',' or ')' but found 's' at character 4");
  CHECK(error_of("shape: [2]", R"x(kind: "int" expr: "s0)" hint: 2)x") ==
        "g.pbtxt: node 's0': val.sym.expr = 's0)' is not a symbolic expression: unbalanced ')' at character 3");
  CHECK(error_of("shape: [2]", R"(kind: "int" hint: 2)") ==
        "g.pbtxt: node 's0': val.sym.expr = '' is not a symbolic expression: is empty");
  // stride_expr has one entry per stride.
  CHECK(error_of(R"(shape: [2, 512] stride: [512, 1] stride_expr: ["512"])") ==
        "g.pbtxt: node 'x': val.tensor.stride_expr has 1 entries but stride has 2");
}

TEST_CASE("a constant entry equals its hint") {
  CHECK(error_of(R"(shape: [2, 512] shape_expr: ["s0", "256"])") ==
        "g.pbtxt: node 'x': val.tensor.shape_expr[1] = '256' but shape[1] = 512 (a constant entry is its own hint)");
  CHECK(error_of(R"(shape: [2, 512] stride: [512, 1] stride_expr: ["512", "2"])") ==
        "g.pbtxt: node 'x': val.tensor.stride_expr[1] = '2' but stride[1] = 1 (a constant entry is its own hint)");
  CHECK(error_of(R"(shape: [2] stride: [1] storage_offset: 3 storage_offset_expr: "4")") ==
        "g.pbtxt: node 'x': val.tensor.storage_offset_expr = '4' but storage_offset = 3 (a constant entry is its own "
        "hint)");
}
