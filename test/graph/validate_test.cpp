// Validation (lib/graph/validate.h): each rule rejects its case with the
// exact one-line message, and a valid graph is indexed as documented
// (input kinds, impurity, users, outputs, sizes).
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>

#include "graph/dtype.h"
#include "graph/errors.h"
#include "graph/graph_io.h"
#include "graph/printable.h"
#include "graph/validate.h"
#include "graph/validation_error.h"

namespace {

pt::Graph valid(const std::string& pbtxt) { return pt::validate(pt::test::parse_pbtxt(pbtxt), "g.pbtxt"); }

using pt::test::validation_error;

// A placeholder "x" (float32 [2, 3]) and the output node returning it; the
// node text in between is spliced in.
std::string around(const std::string& middle, const std::string& outputs = "items { node: \"x\" }") {
  return R"(
    nodes { name: "x" op: "placeholder" target: "primals_1"
            val { tensor { shape: [2, 3] stride: [3, 1] dtype: "float32" } } }
  )" + middle + R"(
    nodes { name: "output" op: "output" target: "output" args { list { )" + outputs + R"( } } }
  )";
}

std::string call(const std::string& name, const std::string& fields) {
  return "nodes { name: \"" + name + "\" op: \"call_function\" target: \"aten.relu.default\" " + fields + " }";
}

const std::string kTensorVal = R"(val { tensor { shape: [2, 3] stride: [3, 1] dtype: "float32" } })";

}  // namespace

TEST_CASE("graph-level rules") {
  CHECK(validation_error("") == "g.pbtxt: nodes is empty (a graph needs at least its output node)");
  pt::ValidateOptions small;
  small.max_nodes = 1;
  CHECK(validation_error(around(""), small) == "g.pbtxt: nodes has 2 entries, above --max-nodes = 1");
  CHECK(validation_error(R"(nodes { op: "output" })") == "g.pbtxt: nodes[0].name is empty");
  CHECK(validation_error(around(call("x", kTensorVal))) == "g.pbtxt: node 'x': name is not unique (also nodes[0])");
  // Only the output node: nothing to partition as a joint graph, but a valid
  // partition output (the empty backward of a graph without tangents; a
  // fuzzer finding, test/robustness/empty_backward.json).
  const std::string only_output = R"(nodes { name: "output" op: "output" target: "output" })";
  CHECK(validation_error(only_output) ==
        "g.pbtxt: nodes holds only the output node (no inputs and no ops: nothing to partition)");
  pt::ValidateOptions partition_output;
  partition_output.partition_graph = true;
  CHECK(validation_error(only_output, partition_output) == "");
}

TEST_CASE("a control character anywhere in a name of any length to 40 is found, and only a control character") {
  // The name scan asks has_control_character of every name, 8 and 4 bytes
  // a step with overlapping tails: a byte it missed would let a name with
  // a newline into the reports. Bytes next to the class's edges too.
  for (size_t length = 1; length <= 40; ++length) {
    for (size_t at = 0; at < length; ++at) {
      CAPTURE(length);
      CAPTURE(at);
      for (const int c : {0x00, 0x01, 0x0a, 0x1f, 0x7f}) {
        std::string name(length, 'a');
        name[at] = static_cast<char>(c);
        CHECK(pt::has_control_character(name));
      }
      for (const int c : {0x20, 0x21, 0x3f, 0x60, 0x7e, 0x80, 0x9f, 0xa0, 0xe0, 0xff}) {
        std::string name(length, 'a');
        name[at] = static_cast<char>(c);
        CHECK_FALSE(pt::has_control_character(name));
      }
    }
  }
  CHECK(validation_error(around(call(std::string("a\\tb"), kTensorVal))) ==
        "g.pbtxt: nodes[1].name = 'a\\tb' holds a control character (names are one-line identifiers)");
}

TEST_CASE("op kinds and the output node") {
  CHECK(validation_error(around(R"(nodes { name: "m" op: "call_method" target: "add" })")) ==
        "g.pbtxt: node 'm': op = 'call_method' is not one of placeholder, call_function, get_attr, output");
  CHECK(validation_error(R"(nodes { name: "x" op: "placeholder" val { none: true } })") ==
        "g.pbtxt: node 'x': op = 'placeholder' but the last node must be the output node");
  CHECK(validation_error(around(R"(nodes { name: "out0" op: "output" })")) ==
        "g.pbtxt: node 'out0': op = 'output' but the output node must be the last node");
  CHECK(validation_error(around(R"(nodes { name: "f" op: "call_function" })")) == "g.pbtxt: node 'f': target is empty");
}

TEST_CASE("references: unknown, later (cycle), self, in kwargs and nested lists") {
  CHECK(validation_error(around(call("r", R"(args { node: "nope" })"))) ==
        "g.pbtxt: node 'r': args[0].node = 'nope' refers to no node in the graph");
  CHECK(validation_error(around(call("a", R"(args { node: "b" })") + call("b", R"(args { node: "a" })"))) ==
        "g.pbtxt: node 'a': args[0].node = 'b' refers to a later node (nodes must be in topological order; is "
        "there a cycle?)");
  CHECK(validation_error(around(call("s", R"(args { node: "x" } args { node: "s" })"))) ==
        "g.pbtxt: node 's': args[1].node = 's' refers to the node itself (a cycle)");
  CHECK(validation_error(around(call("k", R"(kwargs { key: "other" value { node: "zz" } })"))) ==
        "g.pbtxt: node 'k': kwargs.other.node = 'zz' refers to no node in the graph");
  CHECK(validation_error(around(call("l", R"(args { list { items { int: 1 } items { node: "zz" } } })"))) ==
        "g.pbtxt: node 'l': args[0].list.items[1].node = 'zz' refers to no node in the graph");
  // The output node's references are checked like any other.
  CHECK(validation_error(around("", R"(items { node: "ghost" })")) ==
        "g.pbtxt: node 'output': args[0].list.items[0].node = 'ghost' refers to no node in the graph");
}

TEST_CASE("args: empty Arg and nesting depth") {
  CHECK(validation_error(around(call("e", R"(args { node: "x" } args { })"))) ==
        "g.pbtxt: node 'e': args[1] has no field set (expected one of node, int, float, bool, str, none, list, "
        "dtype, device, repr)");
  CHECK(validation_error(around(call("e", R"(args { list { items { } } })"))) ==
        "g.pbtxt: node 'e': args[0].list.items[0] has no field set (expected one of node, int, float, bool, str, "
        "none, list, dtype, device, repr)");
  pt::ValidateOptions shallow;
  shallow.max_nesting = 2;
  const std::string two = call("n", R"(args { list { items { list { items { int: 1 } } } } } )" + kTensorVal);
  const std::string three = call("n", R"(args { list { items { list { items { list { } } } } } })");
  CHECK(validation_error(around(two), shallow) == "");
  CHECK(validation_error(around(three), shallow) ==
        "g.pbtxt: node 'n': args[0] nests lists deeper than 2 levels (the limit for args and values)");
}

TEST_CASE("values: presence, kinds, symbols") {
  CHECK(validation_error(around(R"(nodes { name: "p" op: "placeholder" })")) ==
        "g.pbtxt: node 'p': val is missing (every placeholder needs its value)");
  CHECK(validation_error(around(call("v", "val { }"))) ==
        "g.pbtxt: node 'v': val has no field set (expected one of tensor, tuple, sym, none, opaque)");
  CHECK(validation_error(around(call("s", R"(val { sym { kind: "complex" expr: "s0" hint: 3 } })"))) ==
        "g.pbtxt: node 's': val.sym.kind = 'complex' is not one of int, float, bool");
  CHECK(validation_error(around(call("t", R"(val { tuple { items { none: true } items { sym { kind: "" } } } })"))) ==
        "g.pbtxt: node 't': val.tuple.items[1].sym.kind = '' is not one of int, float, bool");
  CHECK(validation_error(around(call("t", R"(val { tuple { items { none: true } items { } } })"))) ==
        "g.pbtxt: node 't': val.tuple.items[1] has no field set");
  pt::ValidateOptions shallow;
  shallow.max_nesting = 2;
  CHECK(validation_error(around(call("t", R"(val { tuple { items { tuple { items { tuple { } } } } } })")), shallow) ==
        "g.pbtxt: node 't': val.tuple nests tuples deeper than 2 levels (the limit for args and values)");
}

TEST_CASE("tensors: dtype, stride and shape_expr lengths, negative dims, overflow") {
  CHECK(validation_error(around(call("d", R"(val { tensor { shape: [2] dtype: "float12" } })"))) ==
        "g.pbtxt: node 'd': val.tensor.dtype = 'float12' is not a torch dtype");
  CHECK(validation_error(around(call("d", R"(val { tensor { shape: [2, 3] stride: [1] dtype: "float32" } })"))) ==
        "g.pbtxt: node 'd': val.tensor.stride has 1 entries but shape has 2");
  CHECK(validation_error(around(call("d", R"(val { tensor { shape: [2, 3] shape_expr: ["s0"] dtype: "float32" } })"))) ==
        "g.pbtxt: node 'd': val.tensor.shape_expr has 1 entries but shape has 2");
  CHECK(validation_error(around(call("d", R"(val { tensor { shape: [2, -5] dtype: "float32" } })"))) ==
        "g.pbtxt: node 'd': val.tensor.shape[1] = -5 is negative");
  CHECK(validation_error(around(call("d", R"(val { tensor { shape: [4294967296, 4294967296] dtype: "float32" } })"))) ==
        "g.pbtxt: node 'd': val.tensor.shape describes a tensor of more than 2^62 bytes (size overflows)");
  CHECK(validation_error(around(call("d", R"(val { tuple { items { tensor { shape: [1, -1] dtype: "bool" } } } })"))) ==
        "g.pbtxt: node 'd': val.tuple.items[0].tensor.shape[1] = -1 is negative");
  // 2^61 bytes each: one is a valid value, though past the graph's 2^52
  // (value_bytes_limit.h); three are past a value's 2^62.
  const std::string half = R"(items { tensor { shape: [2305843009213693952] dtype: "uint8" } })";
  CHECK(validation_error(around(call("d", "val { tuple { " + half + " } }"))) ==
        "g.pbtxt: node 'd': val holds 2.31 EB, which brings the graph's values to more than 2^52 bytes (4.50 PB), "
        "the most the tool sums exactly");
  CHECK(validation_error(around(call("d", "val { tuple { " + half + half + half + " } }"))) ==
        "g.pbtxt: node 'd': val.tuple holds more than 2^62 bytes");
  // A zero dim makes the tensor empty, however large the other dims.
  const pt::Graph g = valid(around(call("z", R"(val { tensor { shape: [0, 4611686018427387904] dtype: "float64" } })")));
  CHECK(g[g.find("z")].size_bytes == 0u);
}

TEST_CASE("tags: recompute and partitioner_tag") {
  CHECK(validation_error(around(call("r", R"(recompute: "ALWAYS" )" + kTensorVal))) ==
        "g.pbtxt: node 'r': recompute = 'ALWAYS' is not one of MUST_SAVE, PREFER_SAVE, MUST_RECOMPUTE, "
        "PREFER_RECOMPUTE");
  CHECK(validation_error(around(call("t", R"(partitioner_tag: "is_sideways" )" + kTensorVal))) ==
        "g.pbtxt: node 't': partitioner_tag = 'is_sideways' is not one of is_forward, is_backward, "
        "must_be_in_forward, must_be_in_backward");
  const pt::Graph g = valid(around(call("r", R"(recompute: "PREFER_RECOMPUTE" ac_graph_id: 7
                                                   partitioner_tag: "must_be_in_backward" )" + kTensorVal)));
  const pt::Node& r = g[g.find("r")];
  CHECK(r.recompute == pt::Recompute::PreferRecompute);
  REQUIRE(r.has_ac_graph_id);
  CHECK(r.ac_graph_id == 7);
  CHECK(r.tag == pt::PartitionerTag::MustBeInBackward);
}

TEST_CASE("outputs: num_fwd_outputs and static_lifetime_input_indices ranges") {
  std::string g = around("", R"(items { node: "x" } items { none: true })");
  CHECK(validation_error(g + "num_fwd_outputs: 3") == "g.pbtxt: num_fwd_outputs = 3 is outside the output list (2 outputs)");
  CHECK(validation_error(g + "num_fwd_outputs: -1") == "g.pbtxt: num_fwd_outputs = -1 is outside the output list (2 outputs)");
  CHECK(validation_error(g + "num_fwd_outputs: 1") == "");
  // All outputs forward: in range, valid for a partition's forward graph (a
  // joint graph needs its primal's gradient, semantic_check_test.cpp).
  pt::ValidateOptions partition_graph;
  partition_graph.partition_graph = true;
  CHECK(validation_error(g + "num_fwd_outputs: 2", partition_graph) == "");
  CHECK(validation_error(g + "static_lifetime_input_indices: [0, 1]") ==
        "g.pbtxt: static_lifetime_input_indices[1] = 1 is not the index of a primal input (there are 1)");
  CHECK(validation_error(g + "static_lifetime_input_indices: [-1]") ==
        "g.pbtxt: static_lifetime_input_indices[0] = -1 is not the index of a primal input (there are 1)");
}

TEST_CASE("a valid graph is indexed: input kinds, impurity, users, outputs, sizes, packets") {
  const pt::Graph g = valid(R"(
    nodes { name: "primals_1" op: "placeholder" target: "primals_1"
            val { tensor { shape: [4, 8] stride: [8, 1] dtype: "bfloat16" } } }
    nodes { name: "primals_2" op: "placeholder" target: "primals_2" val { sym { kind: "int" expr: "s0" hint: 4 } } }
    nodes { name: "fwd_seed" op: "placeholder" target: "fwd_seed" val { tensor { dtype: "int64" } } }
    nodes { name: "bwd_base_offset" op: "placeholder" target: "bwd_base_offset" val { tensor { dtype: "int64" } } }
    nodes { name: "tangents_1" op: "placeholder" target: "tangents_1"
            val { tensor { shape: [4, 8] stride: [8, 1] dtype: "bfloat16" } } }
    nodes { name: "mul" op: "call_function" target: "aten.mul.Tensor"
            args { node: "primals_1" } args { node: "primals_1" }
            kwargs { key: "b" value { list { items { node: "tangents_1" } } } }
            val { tensor { shape: [4, 8] stride: [8, 1] dtype: "bfloat16" } } op_tags: ["pointwise"] }
    nodes { name: "rand" op: "call_function" target: "aten.rand.default" op_tags: ["nondeterministic_seeded"]
            val { tensor { shape: [3] dtype: "float32" } } }
    nodes { name: "copy" op: "call_function" target: "aten.copy_.default" mutable: true
            args { node: "primals_1" } args { node: "mul" } val { tensor { shape: [4, 8] dtype: "bfloat16" } } }
    nodes { name: "assert" op: "call_function" target: "aten._assert_scalar.default" val { none: true } }
    nodes { name: "split" op: "call_function" target: "aten.split.Tensor" args { node: "mul" }
            val { tuple { items { tensor { shape: [2, 8] dtype: "bfloat16" } }
                          items { tensor { shape: [2, 8] dtype: "bfloat16" } }
                          items { tuple { items { tensor { shape: [100] dtype: "float32" } } } } } } }
    nodes { name: "getitem" op: "call_function" target: "operator.getitem" args { node: "split" } args { int: 0 }
            val { tensor { shape: [2, 8] dtype: "bfloat16" } } impure: true }
    nodes { name: "output" op: "output" target: "output"
            args { list { items { node: "mul" } items { node: "getitem" } items { none: true } } } }
    num_fwd_outputs: 1
    static_lifetime_input_indices: [0]
  )");
  CHECK(g.size() == 12);
  CHECK(g[0].input_kind == pt::InputKind::Primal);
  CHECK(g[1].input_kind == pt::InputKind::Primal);
  CHECK(g[2].input_kind == pt::InputKind::FwdSeed);
  CHECK(g[3].input_kind == pt::InputKind::BwdSeed);
  CHECK(g[4].input_kind == pt::InputKind::Tangent);
  CHECK(g[5].input_kind == pt::InputKind::NotInput);
  CHECK(g.primals == std::vector<pt::NodeId>{0, 1});
  CHECK(g.static_lifetime[0]);
  CHECK_FALSE(g.static_lifetime[1]);

  const pt::Node& mul = g[g.find("mul")];
  CHECK(mul.packet == "aten.mul");
  CHECK(mul.inputs == std::vector<pt::NodeId>{0, 0, 4});      // repeats kept, kwargs after args
  CHECK(mul.positional_inputs == std::vector<pt::NodeId>{0, 0});
  CHECK(mul.first_arg_is_node);
  CHECK(g[g.find("getitem")].first_arg_is_node);
  CHECK_FALSE(g[g.find("rand")].first_arg_is_node);    // no args
  CHECK_FALSE(g[g.output_node()].first_arg_is_node);   // args[0] is a list
  CHECK(mul.size_bytes == 4u * 8u * 2u);
  auto users = [&g](pt::NodeId id) { return std::vector<pt::NodeId>(g.users[id].begin(), g.users[id].end()); };
  CHECK(users(0) == std::vector<pt::NodeId>{5, 7});  // distinct, graph order
  CHECK(users(5) == std::vector<pt::NodeId>{7, 9, 11});
  CHECK(g[g.find("getitem")].packet == "operator.getitem");

  CHECK(g[1].value_kind == pt::ValueKind::Sym);
  CHECK(g[1].size_bytes == 1u);
  CHECK(g[g.find("split")].value_kind == pt::ValueKind::Tuple);
  CHECK(g[g.find("split")].size_bytes == 2u * (2u * 8u * 2u));  // direct tensor items only

  // Impure: placeholders, mutable ops, side-effect ops, explicit `impure`.
  for (std::string name : {"primals_1", "tangents_1", "copy", "assert", "getitem"}) {
    CAPTURE(name);
    CHECK(g[g.find(name)].impure);
  }
  CHECK_FALSE(mul.impure);
  // nondeterministic_seeded is not a side effect: PyTorch's dead-code
  // elimination drops unused seeded ops (validate.cpp explains).
  CHECK_FALSE(g[g.find("rand")].impure);
  CHECK_FALSE(g[g.find("split")].impure);

  CHECK(g.num_fwd_outputs == 1);
  CHECK(g.outputs == std::vector<pt::NodeId>{5, 10, pt::kNoNode});
  CHECK(g.find("nope") == pt::kNoNode);
  CHECK(g.output_node() == 11);
}

TEST_CASE("first_arg_is_node: only a direct node reference in args[0] counts") {
  const pt::Graph g = valid(R"(
    nodes { name: "x" op: "placeholder" target: "x" val { tensor { shape: [4] dtype: "float32" } } }
    nodes { name: "a" op: "call_function" target: "mylib.f.default" args { int: 0 } args { node: "x" }
            val { tensor { shape: [4] dtype: "float32" } } }
    nodes { name: "b" op: "call_function" target: "mylib.f.default" kwargs { key: "self" value { node: "x" } }
            val { tensor { shape: [4] dtype: "float32" } } }
    nodes { name: "c" op: "call_function" target: "mylib.f.default" args { node: "a" } args { node: "x" }
            val { tensor { shape: [4] dtype: "float32" } } }
    nodes { name: "output" op: "output" target: "output"
            args { list { items { node: "a" } items { node: "b" } items { node: "c" } items { none: true } } } }
    num_fwd_outputs: 3
  )");
  const pt::Node& a = g[g.find("a")];
  CHECK_FALSE(a.first_arg_is_node);  // args[1] is the node
  CHECK(a.positional_inputs == std::vector<pt::NodeId>{0});
  CHECK_FALSE(g[g.find("b")].first_arg_is_node);  // a kwarg
  CHECK(g[g.find("c")].first_arg_is_node);
  CHECK(g[g.find("c")].positional_inputs.front() == g.find("a"));
}

TEST_CASE("arg_numbers: the ints and floats among the positional args, in lists too, not in kwargs") {
  const pt::Graph g = valid(R"(
    nodes { name: "x" op: "placeholder" target: "x" val { tensor { shape: [4] dtype: "float32" } } }
    nodes { name: "a" op: "call_function" target: "mylib.f.default" args { node: "x" } args { int: -1 }
            args { list { items { int: 2 } items { float: 0.5 } items { list { items { int: 3 } } } } }
            args { bool: true } args { str: "s" } args { dtype: "float32" }
            kwargs { key: "alpha" value { float: 2 } }
            val { tensor { shape: [4] dtype: "float32" } } }
    nodes { name: "b" op: "call_function" target: "mylib.f.default" args { node: "x" }
            kwargs { key: "dim" value { int: 0 } } val { tensor { shape: [4] dtype: "float32" } } }
    nodes { name: "output" op: "output" target: "output"
            args { list { items { node: "a" } items { node: "b" } items { none: true } } } }
    num_fwd_outputs: 2
  )");
  CHECK(g[g.find("a")].arg_numbers == 4);
  CHECK(g[g.find("b")].arg_numbers == 0);
  CHECK(g[g.find("x")].arg_numbers == 0);
  // Capped at 255: Inductor's count stops at 100 anyway.
  std::string many;
  for (int i = 0; i < 300; ++i) many += "items { int: " + std::to_string(i) + " } ";
  const pt::Graph big = valid(around(call("r", "args { node: \"x\" } args { list { " + many + "} } " + kTensorVal)));
  CHECK(big[big.find("r")].arg_numbers == 255);
}

TEST_CASE("Node::dtype: a tensor value's dtype code, 0 for tuples, symbols and nothing") {
  const pt::Graph g = valid(R"(
    nodes { name: "x" op: "placeholder" target: "x" val { tensor { shape: [4] dtype: "float32" } } }
    nodes { name: "y" op: "placeholder" target: "y" val { tensor { shape: [4] dtype: "torch.bfloat16" } } }
    nodes { name: "s" op: "placeholder" target: "s" val { sym { expr: "s0" kind: "int" } } }
    nodes { name: "t" op: "call_function" target: "mylib.f.default" args { node: "x" }
            val { tuple { items { tensor { shape: [4] dtype: "float32" } } } } }
    nodes { name: "output" op: "output" target: "output"
            args { list { items { node: "t" } items { node: "y" } items { none: true } items { none: true }
                          items { none: true } } } }
    num_fwd_outputs: 2
  )");
  CHECK(g[g.find("x")].dtype == pt::dtype_code("float32"));
  CHECK(g[g.find("y")].dtype == pt::dtype_code("torch.bfloat16"));
  CHECK(g[g.find("x")].dtype != g[g.find("y")].dtype);
  CHECK(g[g.find("s")].dtype == 0);
  CHECK(g[g.find("t")].dtype == 0);
  CHECK(g[g.find("output")].dtype == 0);
}

TEST_CASE("UserLists: each node's distinct users in graph order, repeats once, nodes without users empty") {
  std::vector<pt::Node> nodes(5);
  const std::vector<pt::NodeId> reads2{0, 0, 1}, reads3{2, 0}, reads4{3, 2, 3};
  nodes[2].inputs = reads2;  // reads 0 twice
  nodes[3].inputs = reads3;
  nodes[4].inputs = reads4;
  const pt::UserLists users(nodes);
  auto of = [&users](pt::NodeId id) { return std::vector<pt::NodeId>(users[id].begin(), users[id].end()); };
  REQUIRE(users.size() == 5);
  CHECK(of(0) == std::vector<pt::NodeId>{2, 3});
  CHECK(of(1) == std::vector<pt::NodeId>{2});
  CHECK(of(2) == std::vector<pt::NodeId>{3, 4});
  CHECK(of(3) == std::vector<pt::NodeId>{4});
  CHECK(users[4].empty());
  CHECK(pt::UserLists().empty());
}

namespace {

// Every field validate() sets, for comparing two validations of one message.
void check_same_graph(const pt::Graph& a, const pt::Graph& b) {
  REQUIRE(a.size() == b.size());
  for (pt::NodeId id = 0; id < a.size(); ++id) {
    CAPTURE(a[id].name);
    CHECK(a[id] == b[id]);
    CHECK(b.find(a[id].name) == id);
  }
  CHECK(a.users == b.users);
  CHECK(a.primals == b.primals);
  CHECK(a.outputs == b.outputs);
  CHECK(a.static_lifetime == b.static_lifetime);
  CHECK(a.num_fwd_outputs == b.num_fwd_outputs);
}

// A chain x -> n0 -> n1 -> ... -> n{count-1}, each a relu of the previous.
std::string chain(int count, const std::string& bad_at_10 = "", const std::string& bad_at_30 = "") {
  std::string middle;
  for (int i = 0; i < count; ++i) {
    const std::string prev = i == 0 ? "x" : "n" + std::to_string(i - 1);
    std::string fields = "args { node: \"" + prev + "\" } " + kTensorVal;
    if (i == 10 && !bad_at_10.empty()) fields = bad_at_10;
    if (i == 30 && !bad_at_30.empty()) fields = bad_at_30;
    middle += call("n" + std::to_string(i), fields) + "\n";
  }
  return around(middle, "items { node: \"n" + std::to_string(count - 1) + "\" }");
}

}  // namespace

TEST_CASE("the error reported is the one at the lowest node") {
  const std::string dangling = "args { node: \"nowhere\" } " + kTensorVal;
  const std::string bad_dtype = "args { node: \"n29\" } val { tensor { shape: [2] dtype: \"float33\" } }";
  const std::string at_10 = "g.pbtxt: node 'n10': args[0].node = 'nowhere' refers to no node in the graph";
  const std::string at_30 = "g.pbtxt: node 'n30': val.tensor.dtype = 'float33' is not a torch dtype";
  CHECK(validation_error(chain(40, dangling, bad_dtype)) == at_10);
  CHECK(validation_error(chain(40, "", bad_dtype)) == at_30);
  CHECK(validation_error(chain(40, dangling, "")) == at_10);
  CHECK(validation_error(chain(40)).empty());
  // A reference to a later node is told apart from an unknown one.
  CHECK(validation_error(chain(40, "args { node: \"n35\" } " + kTensorVal)) ==
        "g.pbtxt: node 'n10': args[0].node = 'n35' refers to a later node (nodes must be in topological order; is there a "
        "cycle?)");
}

TEST_CASE("name errors are reported in node order") {
  auto renamed = [](std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find("name: \"" + from + "\"");
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size() + 8, "name: \"" + to + "\"");
  };
  const std::string control = renamed(chain(40), "n30", "n30\\001");  // pbtxt octal escape
  const std::string duplicate = renamed(chain(40), "n35", "n5");
  const std::string both = renamed(control, "n35", "n5");
  CHECK(validation_error(control).find("nodes[31].name = 'n30\\x01' holds a control character") != std::string::npos);
  CHECK(validation_error(duplicate) == "g.pbtxt: node 'n5': name is not unique (also nodes[6])");
  CHECK(validation_error(both) == validation_error(control));
}

TEST_CASE("a bad name is reported before a node that failed earlier in the graph") {
  // Validation checks a node as soon as it is named; a name error anywhere
  // still comes first, as if every name were checked before any node.
  std::string text = chain(40, "args { node: \"nowhere\" } " + kTensorVal);
  const auto at = text.find("name: \"n35\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, 11, "name: \"n5\"");
  CHECK(validation_error(text) == "g.pbtxt: node 'n5': name is not unique (also nodes[6])");
  CHECK(validation_error("name: \"g\\001\" " + chain(40, "args { node: \"nowhere\" } " + kTensorVal)) ==
        "g.pbtxt: name = 'g\\x01' holds a control character (names are one-line identifiers)");
}

TEST_CASE("gpt2_124m read as .pb, .pbtxt and .json: the same graph") {
  const std::string path = std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb";
  const auto message = pt::read_graph(path, pt::Format::Binary);
  const pt::Graph from_pb = pt::validate(message, "gpt2_124m.pb");
  REQUIRE(from_pb.size() > 2000);
  pt::Node changed = from_pb[5];  // the comparison sees a field
  changed.numel += 1;
  CHECK_FALSE(changed == from_pb[5]);
  for (pt::Format f : {pt::Format::Text, pt::Format::Json}) {
    CAPTURE(pt::format_name(f));
    const std::string bytes = pt::serialize_message(*message, f);
    check_same_graph(from_pb, pt::validate(pt::parse_graph(bytes, f, "gpt2_124m"), "gpt2_124m"));
  }
}

TEST_CASE("kwargs' node references are read by key, whatever order the map holds them in") {
  // Inserted b before a: the inputs list a's reference first (pytree leaves:
  // args, then kwargs sorted by key).
  const pt::Graph g = valid(around(call("y", "args { node: \"x\" } " + kTensorVal) + call("z", R"(
      kwargs { key: "b" value { node: "y" } } kwargs { key: "a" value { node: "x" } } )" + kTensorVal)));
  const pt::Node& z = g[g.find("z")];
  REQUIRE(z.inputs.size() == 2);
  CHECK(z.inputs[0] == g.find("x"));
  CHECK(z.inputs[1] == g.find("y"));
  CHECK(z.positional_inputs.empty());
  CHECK(pt::find_kwarg(g.record(g.find("z")), "b")->node() == "y");
  CHECK(pt::find_kwarg(g.record(g.find("z")), "c") == nullptr);
}
