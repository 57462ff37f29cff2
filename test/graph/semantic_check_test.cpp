// Semantic rules of validation (lib/graph/semantic_check.h and the val,
// identifier and nesting rules of validate.h): graphs that parse but that
// no PyTorch trace produces are refused with one line naming the node and
// the field; the graphs PyTorch does produce pass.
#include <doctest/doctest.h>

#include <string>

#include "graph/printable.h"
#include "graph/validate.h"
#include "graph/validation_error.h"

namespace {

using pt::test::validation_error;

const std::string kTensor = R"(tensor { shape: [2, 3] stride: [3, 1] dtype: "float32" })";
const std::string kVal = "val { " + kTensor + " }";

// A joint graph: primal "x", tangent "tangents_1", the nodes in `middle`,
// then the output node returning `forward` (items text, one forward output
// each) and x's gradient (none).
std::string joint(const std::string& middle, const std::string& forward = R"(items { node: "x" })",
                  int num_fwd_outputs = 1) {
  return R"(
    nodes { name: "x" op: "placeholder" target: "primals_1" )" + kVal + R"( }
    nodes { name: "tangents_1" op: "placeholder" target: "tangents_1" )" + kVal + R"( }
  )" + middle + R"(
    nodes { name: "output" op: "output" target: "output" args { list { )" + forward +
         R"( items { none: true } } } }
    num_fwd_outputs: )" + std::to_string(num_fwd_outputs);
}

// "split": a 2-tuple of tensors from x; then `getitem`'s own fields.
std::string split_then(const std::string& getitem_fields) {
  return R"(nodes { name: "split" op: "call_function" target: "aten.split.Tensor" args { node: "x" } args { int: 1 }
                    val { tuple { items { )" + kTensor + " } items { " + kTensor + R"( } } } }
            nodes { name: "gi" op: "call_function" target: "operator.getitem" )" + getitem_fields + " }";
}

std::string node(const std::string& name, const std::string& target, const std::string& fields) {
  return "nodes { name: \"" + name + "\" op: \"call_function\" target: \"" + target + "\" " + fields + " }";
}

}  // namespace

TEST_CASE("getitem: an int index within a tuple-valued node is accepted") {
  CHECK(validation_error(joint(split_then(R"(args { node: "split" } args { int: 0 } )" + kVal))) == "");
  CHECK(validation_error(joint(split_then(R"(args { node: "split" } args { int: 1 } )" + kVal))) == "");
}

TEST_CASE("getitem on a value that is not a tuple") {
  // A tensor, a symbol, none, an opaque object.
  CHECK(validation_error(joint(node("gi", "operator.getitem", R"(args { node: "x" } args { int: 0 } )" + kVal))) ==
        "g.pbtxt: node 'gi': args[0].node = 'x' whose val is a tensor, not a tuple (operator.getitem reads an item "
        "of a multi-output op; tensors are indexed by aten ops)");
  for (const std::string value : {R"(sym { kind: "int" expr: "s0" hint: 2 })", "none: true", R"(opaque: "Handle")"}) {
    CAPTURE(value);
    const std::string source = node("v", "mylib.f.default", "args { node: \"x\" } val { " + value + " }");
    const std::string message =
        validation_error(joint(source + node("gi", "operator.getitem", R"(args { node: "v" } args { int: 0 } )" +
                                                                            kVal)));
    CHECK(message.starts_with("g.pbtxt: node 'gi': args[0].node = 'v' whose val is "));
    CHECK(message.find(", not a tuple") != std::string::npos);
  }
  // Not a node at all.
  const std::string list_source = R"(args { list { items { int: 1 } } } args { int: 0 } )";
  CHECK(validation_error(joint(node("gi", "operator.getitem", list_source + kVal))) ==
        "g.pbtxt: node 'gi': args[0] is a list; operator.getitem reads a node's tuple");
}

TEST_CASE("getitem with an index out of range or of the wrong type") {
  CHECK(validation_error(joint(split_then(R"(args { node: "split" } args { int: 2 } )" + kVal))) ==
        "g.pbtxt: node 'gi': args[1].int = 2 is outside the tuple of 'split' (2 items, indices 0 to 1)");
  // Python would read item -1; AOTAutograd never writes it.
  CHECK(validation_error(joint(split_then(R"(args { node: "split" } args { int: -1 } )" + kVal))) ==
        "g.pbtxt: node 'gi': args[1].int = -1 is outside the tuple of 'split' (2 items, indices 0 to 1)");
  CHECK(validation_error(joint(split_then(R"(args { node: "split" } args { int: -9223372036854775808 } )" + kVal)))
            .find("args[1].int = -9223372036854775808 is outside") != std::string::npos);
  const std::string empty = node("e", "mylib.f.default", R"(args { node: "x" } val { tuple { } })");
  const std::string of_empty = R"(args { node: "e" } args { int: 0 } )";
  CHECK(validation_error(joint(empty + node("gi", "operator.getitem", of_empty + kVal))) ==
        "g.pbtxt: node 'gi': args[1].int = 0 is outside the tuple of 'e' (an empty tuple)");
  const struct {
    std::string arg, kind;
  } wrong[] = {{"float: 0", "a float"}, {"bool: false", "a bool"}, {R"(str: "0")", "a str"},
               {"none: true", "none"},  {R"(node: "x")", "a node reference"}, {"list { items { int: 0 } }", "a list"}};
  for (const auto& w : wrong) {
    CAPTURE(w.arg);
    CHECK(validation_error(joint(split_then(R"(args { node: "split" } args { )" + w.arg + " } " + kVal))) ==
          "g.pbtxt: node 'gi': args[1] is " + w.kind + "; the item index is an int");
  }
}

TEST_CASE("getitem: its val is of the kind of the item it reads") {
  const std::string tuple = node("t", "mylib.f.default",
                                 "args { node: \"x\" } val { tuple { items { " + kTensor + " } items { none: true } } }");
  const auto item = [&](int k, const std::string& value) {
    return joint(tuple + node("gi", "operator.getitem",
                              "args { node: \"t\" } args { int: " + std::to_string(k) + " } val { " + value + " }"));
  };
  CHECK(validation_error(item(0, kTensor)) == "");
  CHECK(validation_error(item(1, "none: true")) == "");
  CHECK(validation_error(item(1, kTensor)) == "g.pbtxt: node 'gi': val is a tensor but item 1 of 't' is none");
  CHECK(validation_error(item(0, R"(sym { kind: "int" expr: "s0" hint: 2 })")) ==
        "g.pbtxt: node 'gi': val is a symbol but item 0 of 't' is a tensor");
}

TEST_CASE("getitem takes exactly two args and no kwargs") {
  CHECK(validation_error(joint(split_then(R"(args { node: "split" } )" + kVal))) ==
        "g.pbtxt: node 'gi': args has 1 entries and 0 kwargs; operator.getitem takes two args (a tuple and an item "
        "index)");
  CHECK(validation_error(joint(split_then(R"(args { node: "split" } args { int: 0 } args { int: 1 } )" + kVal)))
            .starts_with("g.pbtxt: node 'gi': args has 3 entries and 0 kwargs"));
  CHECK(validation_error(joint(split_then(R"(args { node: "split" } kwargs { key: "i" value { int: 0 } } )" + kVal)))
            .starts_with("g.pbtxt: node 'gi': args has 1 entries and 1 kwargs"));
}

TEST_CASE("gradients: one per primal after the forward outputs") {
  CHECK(validation_error(joint("")) == "");
  // One gradient too many, one too few (num_fwd_outputs moved either way).
  CHECK(validation_error(joint("", R"(items { node: "x" } items { none: true })")) ==
        "g.pbtxt: node 'output': args holds 2 gradients (3 outputs after num_fwd_outputs = 1) but the graph has 1 "
        "primal inputs (a joint graph returns one gradient, or none, per primal)");
  CHECK(validation_error(joint("", R"(items { node: "x" } items { none: true })", 2)) == "");
  CHECK(validation_error(joint("", R"(items { node: "x" })", 2)) ==
        "g.pbtxt: node 'output': args holds 0 gradients (2 outputs after num_fwd_outputs = 2) but the graph has 1 "
        "primal inputs (a joint graph returns one gradient, or none, per primal)");
  CHECK(validation_error(joint("", R"(items { node: "x" })", 0)).starts_with(
      "g.pbtxt: node 'output': args holds 2 gradients (2 outputs after num_fwd_outputs = 0) but the graph has 1"));
  // Tangents and RNG seeds are not primals: no gradient for them.
  const std::string seeds = R"(
    nodes { name: "fwd_seed" op: "placeholder" target: "fwd_seed" val { tensor { dtype: "int64" } } }
    nodes { name: "bwd_base_offset" op: "placeholder" target: "bwd_base_offset" val { tensor { dtype: "int64" } } })";
  CHECK(validation_error(joint(seeds)) == "");
  // A second primal needs its own gradient.
  const std::string primal = R"(nodes { name: "y" op: "placeholder" target: "primals_2" )" + kVal + " }";
  CHECK(validation_error(joint(primal)).find("args holds 1 gradients") != std::string::npos);
  CHECK(validation_error(joint(primal, R"(items { node: "x" } items { node: "y" })")) == "");
  // A partition's forward and backward graphs return other things.
  pt::ValidateOptions partition;
  partition.partition_graph = true;
  CHECK(validation_error(joint(primal), partition) == "");
}

TEST_CASE("val: required on every node but the output node, get_attr and the runtime asserts") {
  CHECK(validation_error(joint(node("r", "aten.relu.default", R"(args { node: "x" })"))) ==
        "g.pbtxt: node 'r': val is missing (only the output node, get_attr nodes and aten._assert_scalar.default "
        "may lack one, as in PyTorch's partitioner)");
  CHECK(validation_error(joint(split_then(R"(args { node: "split" } args { int: 0 })"))) ==
        "g.pbtxt: node 'gi': val is missing (only the output node, get_attr nodes and aten._assert_scalar.default "
        "may lack one, as in PyTorch's partitioner)");
  CHECK(validation_error(joint(node("a", "aten._assert_async.msg", R"(args { node: "x" } args { str: "no" })")))
            .starts_with("g.pbtxt: node 'a': val is missing"));
  const std::string assert_args = R"x(args { bool: true } args { str: "Eq(s0, 2)" })x";
  CHECK(validation_error(joint(node("a", "aten._assert_async.msg", assert_args + " val { none: true }"))) == "");
  CHECK(validation_error(joint(node("a", "aten._assert_scalar.default", assert_args))) == "");
  CHECK(validation_error(joint(R"(nodes { name: "body_graph_0" op: "get_attr" target: "body_graph_0" })")) == "");
}

TEST_CASE("control characters, C0, DEL and C1, in identifier fields; free text may hold any") {
  const std::string nel = "\\302\\205";  // U+0085 in pbtxt octal escapes
  const std::string csi = "\\302\\233";  // U+009B
  // Node 'r' reading x with `fields`.
  const auto r = [](const std::string& fields, const std::string& target = "aten.relu.default") {
    return joint(node("r", target, "args { node: \"x\" } " + fields));
  };
  const std::string why = "' holds a control character (a one-line identifier)";
  const struct {
    std::string graph, error;
  } cases[] = {
      {joint(node("a" + nel + "b", "aten.relu.default", "args { node: \"x\" } " + kVal)),
       "g.pbtxt: nodes[2].name = 'a\\u0085b' holds a control character (names are one-line identifiers)"},
      {"name: \"g" + nel + "\" " + joint(""),
       "g.pbtxt: name = 'g\\u0085' holds a control character (names are one-line identifiers)"},
      {r(kVal, "aten.relu" + csi + ".default"), "g.pbtxt: node 'r': target = 'aten.relu\\u009b.default" + why},
      {r(kVal, "aten.relu\\n.default"), "g.pbtxt: node 'r': target = 'aten.relu\\n.default" + why},
      {r("module_path: \"L['m']" + nel + "\" " + kVal), "g.pbtxt: node 'r': module_path = 'L[\\'m\\']\\u0085" + why},
      {r("op_tags: [\"core\", \"point" + nel + "\"] " + kVal), "g.pbtxt: node 'r': op_tags[1] = 'point\\u0085" + why},
      {r("kwargs { key: \"k\\t\" value { int: 1 } } " + kVal), "g.pbtxt: node 'r': kwargs (a key) = 'k\\t" + why},
      {r("args { list { items { device: \"cuda" + nel + "\" } } } " + kVal),
       "g.pbtxt: node 'r': args[1].list.items[0].device = 'cuda\\u0085" + why},
      {r("args { dtype: \"float\\x7f\" } " + kVal), "g.pbtxt: node 'r': args[1].dtype = 'float\\x7f" + why},
      {r("val { tensor { shape: [1] dtype: \"float32\" device: \"cuda" + nel + "\" } }"),
       "g.pbtxt: node 'r': val.tensor.device = 'cuda\\u0085" + why},
      {r("val { tuple { items { opaque: \"Hand" + csi + "le\" } } }", "mylib.f.default"),
       "g.pbtxt: node 'r': val.tuple.items[0].opaque = 'Hand\\u009ble" + why},
  };
  for (const auto& c : cases) {
    CAPTURE(c.graph);
    CHECK(validation_error(c.graph) == c.error);
  }
  // Strings and reprs are free text: an assert message may span lines.
  CHECK(validation_error(r("args { str: \"line 1\\nline 2" + nel + "\" } args { repr: \"<\\t>\" } val { none: true }",
                           "aten._assert_async.msg")) == "");
  // Other characters of the Latin-1 block are not control characters.
  const std::string latin1 = "caf\\303\\251_\\302\\240";  // café_ and a no-break space
  CHECK(validation_error(joint(node(latin1, "aten.relu.default", "args { node: \"x\" } " + kVal))) ==
        "");
}

TEST_CASE("has_control_character and printable: C1 characters") {
  for (unsigned c = 0x80; c <= 0x9f; ++c) {
    CAPTURE(c);
    const std::string text = std::string("ab\xc2") + static_cast<char>(c) + "cdefghij";
    CHECK(pt::has_control_character(text));
    CHECK(pt::printable(text).find("\\u00") == 2);
  }
  CHECK_FALSE(pt::has_control_character("\xc2\xa0 no-break space, \xc3\xa9, \xe2\x82\xac"));
  CHECK(pt::printable("\xc2\x85") == "\\u0085");
  CHECK(pt::printable("\xc2\xa0") == "\xc2\xa0");
  CHECK_FALSE(pt::has_control_character("\xc2"));  // a cut lead byte alone (UTF-8 checks refuse it)
}

namespace {

std::string nested_list(int depth) {
  std::string arg = "int: 1";
  for (int i = 0; i < depth; ++i) arg = "list { items { " + arg + " } }";
  return arg;
}

std::string nested_tuple(int depth) {
  std::string value = R"(opaque: "x")";
  for (int i = 0; i < depth; ++i) value = "tuple { items { " + value + " } }";
  return value;
}

}  // namespace

TEST_CASE("nesting: 16 levels of lists and tuples are read, 17 refused naming the root field") {
  CHECK(pt::ValidateOptions{}.max_nesting == 16);
  const auto with_arg = [](const std::string& arg) {
    return joint(node("n", "mylib.f.default", "args { node: \"x\" } args { " + arg + " } " + kVal));
  };
  CHECK(validation_error(with_arg(nested_list(16))) == "");
  CHECK(validation_error(with_arg(nested_list(17))) ==
        "g.pbtxt: node 'n': args[1] nests lists deeper than 16 levels (the limit for args and values)");
  const std::string deep_kwarg = "kwargs { key: \"k\" value { " + nested_list(20) + " } } ";
  CHECK(validation_error(joint(node("n", "mylib.f.default", deep_kwarg + kVal))) ==
        "g.pbtxt: node 'n': kwargs.k nests lists deeper than 16 levels (the limit for args and values)");
  const auto with_val = [](const std::string& value) {
    return joint(node("n", "mylib.f.default", "args { node: \"x\" } val { " + value + " }"));
  };
  CHECK(validation_error(with_val(nested_tuple(16))) == "");
  CHECK(validation_error(with_val(nested_tuple(17))) ==
        "g.pbtxt: node 'n': val.tuple nests tuples deeper than 16 levels (the limit for args and values)");
}
