#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "prepare/mutation.h"
#include "prepare/prepare.h"
#include "prepare/text_graph.h"

using pt::test::graph_from_text;
using pt::test::node_names;
using Merges = std::vector<std::pair<std::string, std::string>>;

namespace {

pt::PrepareResult prepare_text(const std::string& text, bool cse = true) {
  pt::Settings s;
  s.cse = cse;
  const pt::Graph joint = graph_from_text(text);
  return pt::prepare(joint, s);
}

std::string call(const std::string& name, const std::string& target, const std::string& args) {
  return "nodes { name: \"" + name + "\" op: \"call_function\" target: \"" + target + "\" " + args + " $T }\n";
}

std::string output(const std::vector<std::string>& names) {
  std::string items;
  for (const auto& n : names) items += "items { node: \"" + n + "\" } ";
  // All forward outputs (graph_from_text adds the gradients).
  return "nodes { name: \"output\" op: \"output\" args { list { " + items + "} } }\nnum_fwd_outputs: " +
         std::to_string(names.size()) + "\n";
}

const std::string kX = R"(args { node: "x" } )";

}  // namespace

TEST_CASE("CSE distinguishes int, float and bool arguments") {
  const auto r = prepare_text("$P(x)\n" + call("a_int", "aten.add.Tensor", kX + "args { int: 1 }") +
                              call("a_float", "aten.add.Tensor", kX + "args { float: 1.0 }") +
                              call("a_bool", "aten.add.Tensor", kX + "args { bool: true }") +
                              call("a_int2", "aten.add.Tensor", kX + "args { int: 1 }") +
                              call("a_float2", "aten.add.Tensor", kX + "args { float: 1.0 }") +
                              call("a_bool2", "aten.add.Tensor", kX + "args { bool: true }") +
                              call("sum", "aten.sum.default", R"(args { list { items { node: "a_int" }
                                   items { node: "a_float" } items { node: "a_bool" } items { node: "a_int2" }
                                   items { node: "a_float2" } items { node: "a_bool2" } } })") +
                              output({"sum"}));
  CHECK(r.merged == Merges{{"a_int2", "a_int"}, {"a_float2", "a_float"}, {"a_bool2", "a_bool"}});
}

TEST_CASE("CSE never merges NaN arguments; infinities and signed zeros compare by value") {
  const auto r = prepare_text("$P(x)\n" + call("n1", "aten.add.Tensor", kX + "args { float: nan }") +
                              call("n2", "aten.add.Tensor", kX + "args { float: nan }") +
                              call("i1", "aten.add.Tensor", kX + "args { float: inf }") +
                              call("i2", "aten.add.Tensor", kX + "args { float: inf }") +
                              call("z1", "aten.add.Tensor", kX + "args { float: 0.0 }") +
                              call("z2", "aten.add.Tensor", kX + "args { float: -0.0 }") +
                              call("sum", "aten.sum.default", R"(args { list { items { node: "n1" }
                                   items { node: "n2" } items { node: "i1" } items { node: "i2" }
                                   items { node: "z1" } items { node: "z2" } } })") +
                              output({"sum"}));
  CHECK(r.merged == Merges{{"i2", "i1"}, {"z2", "z1"}});
}

TEST_CASE("CSE compares the full target, nested lists and kwargs, after substitution") {
  const auto r = prepare_text(
      "$P(x)\n" + call("s1", "aten.sum.dim_IntList", kX + "args { list { items { int: 0 } } }") +
      call("s2", "aten.sum.dim_IntList", kX + "args { list { items { int: 0 } } }") +
      call("s3", "aten.sum.dim_IntList", kX + "args { list { items { int: 0 } items { int: 1 } } }") +
      call("s4", "aten.sum.default", kX) +  // same packet, other overload
      call("c1", "aten.clone.default", R"(args { node: "s1" } kwargs { key: "memory_format" value { repr: "torch.contiguous_format" } })") +
      call("c2", "aten.clone.default", R"(args { node: "s2" } kwargs { key: "memory_format" value { repr: "torch.contiguous_format" } })") +
      call("c3", "aten.clone.default", R"(args { node: "s2" } kwargs { key: "memory_format" value { repr: "torch.preserve_format" } })") +
      call("cat", "aten.cat.default", R"(args { list { items { node: "c1" } items { node: "c2" } items { node: "c3" }
           items { node: "s3" } items { node: "s4" } } })") +
      output({"cat"}));
  CHECK(r.merged == Merges{{"s2", "s1"}, {"c2", "c1"}});
  // The survivors read the kept node.
  const pt::Graph& g = r.graph;
  const pt::Node& c3 = g[g.find("c3")];
  REQUIRE(c3.inputs.size() == 1);
  CHECK(g[c3.inputs[0]].name == "s1");
  CHECK(g.record(g.find("cat")).args(0).list().items(1).node() == "c1");
}

TEST_CASE("CSE is off with the setting cse=false") {
  const auto r = prepare_text("$P(x)\n" + call("a", "aten.neg.default", kX) + call("b", "aten.neg.default", kX) +
                                  call("c", "aten.add.Tensor", R"(args { node: "a" } args { node: "b" })") +
                                  output({"c"}),
                              false);
  CHECK(r.merged.empty());
  CHECK(r.graph.size() == 5);
}

TEST_CASE("CSE mutation regions: no merge across a mutating node; later duplicates merge into the later one") {
  const auto r = prepare_text(
      "$P(x)\n$P(y)\n" + call("m1", "aten.mul.Tensor", kX + "args { int: 2 }") +
      call("m2", "aten.mul.Tensor", kX + "args { int: 2 }") +
      "nodes { name: \"copy_\" op: \"call_function\" target: \"aten.copy_.default\" mutable: true "
      "args { node: \"x\" } args { node: \"y\" } $T }\n" +
      call("m3", "aten.mul.Tensor", kX + "args { int: 2 }") + call("m4", "aten.mul.Tensor", kX + "args { int: 2 }") +
      // Python callables without a schema mutate by name (PyTorch's regex).
      "nodes { name: \"grad_mode\" op: \"call_function\" target: \"torch._C._set_grad_enabled\" "
      "args { bool: false } val { none: true } impure: true }\n" +
      call("m5", "aten.mul.Tensor", kX + "args { int: 2 }") +
      call("cat", "aten.cat.default", R"(args { list { items { node: "m1" } items { node: "m2" } items { node: "m3" }
           items { node: "m4" } items { node: "m5" } } })") +
      output({"cat"}));
  CHECK(r.merged == Merges{{"m2", "m1"}, {"m4", "m3"}});
}

TEST_CASE("CSE mutation regions: a node alone in its region, then duplicates in the next") {
  // m1 has no duplicate before the mutation; m3 and m4 duplicate it after:
  // m3 replaces it as the remembered node and m4 merges into m3. n1 and n2
  // share m1's target and input but not its constant: never merged.
  const auto r = prepare_text(
      "$P(x)\n$P(y)\n" + call("m1", "aten.mul.Tensor", kX + "args { int: 2 }") +
      "nodes { name: \"copy_\" op: \"call_function\" target: \"aten.copy_.default\" mutable: true "
      "args { node: \"x\" } args { node: \"y\" } $T }\n" +
      call("n1", "aten.mul.Tensor", kX + "args { int: 3 }") + call("m3", "aten.mul.Tensor", kX + "args { int: 2 }") +
      call("n2", "aten.mul.Tensor", kX + "args { int: 4 }") + call("m4", "aten.mul.Tensor", kX + "args { int: 2 }") +
      call("cat", "aten.cat.default", R"(args { list { items { node: "m1" } items { node: "n1" } items { node: "m3" }
           items { node: "n2" } items { node: "m4" } } })") +
      output({"cat"}));
  CHECK(r.merged == Merges{{"m4", "m3"}});
}

TEST_CASE("CSE never merges cse_rand ops or aten.empty; randn_like merges") {
  const auto r = prepare_text(
      "$P(x)\n" + call("d1", "aten.native_dropout.default", kX + "args { float: 0.1 } args { bool: true }") +
      call("d2", "aten.native_dropout.default", kX + "args { float: 0.1 } args { bool: true }") +
      call("r1", "aten.rand_like.default", kX) + call("r2", "aten.rand_like.default", kX) +
      call("e1", "aten.empty.memory_format", "args { list { items { int: 4 } } }") +
      call("e2", "aten.empty.memory_format", "args { list { items { int: 4 } } }") +
      "nodes { name: \"n1\" op: \"call_function\" target: \"aten.randn_like.default\" "
      "op_tags: \"nondeterministic_seeded\" args { node: \"x\" } $T }\n"
      "nodes { name: \"n2\" op: \"call_function\" target: \"aten.randn_like.default\" "
      "op_tags: \"nondeterministic_seeded\" args { node: \"x\" } $T }\n" +
      call("cat", "aten.cat.default", R"(args { list { items { node: "d1" } items { node: "d2" } items { node: "r1" }
           items { node: "r2" } items { node: "e1" } items { node: "e2" } items { node: "n1" } items { node: "n2" } } })") +
      output({"cat"}));
  CHECK(r.merged == Merges{{"n2", "n1"}});
}

TEST_CASE("CSE never merges placeholders or get_attr nodes") {
  const auto r = prepare_text(
      "$P(x)\n"
      "nodes { name: \"c0\" op: \"get_attr\" target: \"_tensor_constant0\" $T }\n"
      "nodes { name: \"c1\" op: \"get_attr\" target: \"_tensor_constant0\" $T }\n" +
      call("add", "aten.add.Tensor", R"(args { node: "c0" } args { node: "c1" })") + output({"add"}));
  CHECK(r.merged.empty());
}

TEST_CASE("CSE keeps nodes that alias a graph output (no storage ids: followed through views)") {
  // m1's view p1 is an output, so m1 shares its storage and is neither merged
  // nor a target; m3 merges into m2 instead. v2 is a view of the same base as
  // the output v1: kept apart from v1. Both outputs o1/o2 stay.
  const auto r = prepare_text(
      "$P(x)\n" + call("m1", "aten.mul.Tensor", kX + "args { int: 3 }") +
      call("p1", "aten.permute.default", R"(args { node: "m1" } args { list { items { int: 0 } } })") +
      call("m2", "aten.mul.Tensor", kX + "args { int: 3 }") + call("m3", "aten.mul.Tensor", kX + "args { int: 3 }") +
      call("y", "aten.exp.default", kX) +
      call("v1", "aten.view.default", R"(args { node: "y" } args { list { items { int: 4 } } })") +
      call("v2", "aten.view.default", R"(args { node: "y" } args { list { items { int: 4 } } })") +
      call("o1", "aten.relu.default", kX) + call("o2", "aten.relu.default", kX) +
      call("sum", "aten.sum.default", R"(args { list { items { node: "m2" } items { node: "m3" } items { node: "v2" } } })") +
      output({"p1", "v1", "o1", "o2", "sum"}));
  CHECK(r.merged == Merges{{"m3", "m2"}});
}

TEST_CASE("CSE output aliasing follows getitems of split and copy_") {
  // s1's second chunk is an output: s1's input t1 shares its storage, so t1
  // is no merge target and t2 (equal to t1) stays; so do the chunks g1/g2.
  // copy_ returns its destination: k1 aliases the output `copy`, so k2 stays.
  // y is an output too, but c1/c2 only read it and still merge.
  const auto r = prepare_text(
      "$P(x)\n$P(y)\n" + call("t1", "aten.exp.default", kX) + call("t2", "aten.exp.default", kX) +
      "nodes { name: \"s1\" op: \"call_function\" target: \"aten.split.Tensor\" args { node: \"t1\" } args { int: 2 }"
      " val { tuple { items { $t } items { $t } } } }\n" +
      call("g1", "operator.getitem", R"(args { node: "s1" } args { int: 0 })") +
      call("g1b", "operator.getitem", R"(args { node: "s1" } args { int: 1 })") +
      call("g2", "operator.getitem", R"(args { node: "s1" } args { int: 0 })") +
      call("c1", "aten.neg.default", R"(args { node: "y" })") + call("c2", "aten.neg.default", R"(args { node: "y" })") +
      call("k1", "aten.clone.default", kX) + call("k2", "aten.clone.default", kX) +
      "nodes { name: \"copy\" op: \"call_function\" target: \"aten.copy_.default\" mutable: true "
      "args { node: \"k1\" } args { node: \"y\" } $T }\n" +
      call("sum", "aten.sum.default", R"(args { list { items { node: "t2" } items { node: "g1" } items { node: "g2" }
           items { node: "c1" } items { node: "c2" } items { node: "k2" } } })") +
      output({"g1b", "y", "copy", "sum"}));
  CHECK(r.merged == Merges{{"c2", "c1"}});
}

TEST_CASE("CSE output aliasing by storage ids when the exporter recorded them") {
  // transpose is not in the view class, but the storage ids say b1 shares the
  // output's storage; without ids b2 would merge into b1.
  const auto r = prepare_text(R"(
    nodes { name: "x" op: "placeholder" target: "x" val { tensor { shape: [4] dtype: "float32" storage: 1 } } }
    nodes { name: "b1" op: "call_function" target: "aten.exp.default" args { node: "x" }
            val { tensor { shape: [4] dtype: "float32" storage: 2 } } }
    nodes { name: "t" op: "call_function" target: "aten.transpose.int" args { node: "b1" } args { int: 0 } args { int: 0 }
            val { tensor { shape: [4] dtype: "float32" storage: 2 } } }
    nodes { name: "b2" op: "call_function" target: "aten.exp.default" args { node: "x" }
            val { tensor { shape: [4] dtype: "float32" storage: 3 } } }
    nodes { name: "b3" op: "call_function" target: "aten.exp.default" args { node: "x" }
            val { tensor { shape: [4] dtype: "float32" storage: 4 } } }
    nodes { name: "sum" op: "call_function" target: "aten.add.Tensor" args { node: "b2" } args { node: "b3" }
            val { tensor { shape: [4] dtype: "float32" storage: 5 } } }
    nodes { name: "output" op: "output" args { list { items { node: "t" } items { node: "sum" } } } }
    num_fwd_outputs: 1
  )");
  CHECK(r.merged == Merges{{"b3", "b2"}});
}

TEST_CASE("is_operator_overload of a node (packet and target length) agrees with the target's text") {
  const std::vector<std::string> targets = {
      "aten.mm.default", "aten.mm", "prims.iota.default", "inductor.accumulate_grad_.default", "operator.getitem",
      "_operator.add",   "_operator.add.Tensor", "torch.ops.aten.mm.default", "higher_order.with_effects",
      "math.ceil",       "builtins.getattr.x", "a.b.c.d", "nodots", ".x.", "a..b", "x."};
  int overloads = 0;
  for (const std::string& t : targets) {
    CAPTURE(t);
    pt::Node n;
    n.target = t;
    n.packet = pt::packet_of(t);  // as validate sets it
    CHECK(pt::is_operator_overload(n) == pt::is_operator_overload(std::string_view(t)));
    overloads += pt::is_operator_overload(n);
  }
  CHECK(overloads == 6);  // the aten, prims, inductor ones, a.b.c.d, a..b, .x.
}

TEST_CASE("CSE on 12,000 nodes: merges that need earlier merges, regions, NaN, outputs") {
  // Each layer adds an int to x (a_i, equal every 5 layers), negates it
  // (c_i: equal to an earlier c only once a_i is merged: its signature and
  // key read a_i's merged-into node) and chains the result (b_i). A
  // mutation every 1,000 layers starts a region; every 700th a_i adds NaN
  // (merges with nothing); c_7 is a graph output (never merged).
  std::string text = "$P(x)\n$P(y)\n";
  std::string prev = "x";
  for (int i = 0; i < 3000; ++i) {
    const std::string n = std::to_string(i);
    if (i > 0 && i % 1000 == 0) {
      text += "nodes { name: \"copy_" + n + "\" op: \"call_function\" target: \"aten.copy_.default\" mutable: true "
              "args { node: \"x\" } args { node: \"y\" } $T }\n";
    }
    const std::string addend = i % 700 == 699 ? "args { float: nan }" : "args { int: " + std::to_string(i % 5) + " }";
    text += call("a_" + n, "aten.add.Tensor", kX + addend);
    text += call("c_" + n, "aten.neg.default", "args { node: \"a_" + n + "\" }");
    text += call("b_" + n, "aten.mul.Tensor", "args { node: \"c_" + n + "\" } args { node: \"" + prev + "\" }");
    prev = "b_" + n;
  }
  text += output({prev, "c_7"});
  const pt::Graph joint = graph_from_text(text);
  const pt::PrepareResult one = pt::prepare(joint, pt::Settings{});
  auto merged = [&](const std::string& dup, const std::string& kept) {
    return std::find(one.merged.begin(), one.merged.end(), std::make_pair(dup, kept)) != one.merged.end();
  };
  CHECK(merged("a_5", "a_0"));
  CHECK(merged("c_5", "c_0"));        // equal only after a_5 -> a_0 is patched in
  CHECK(merged("a_1005", "a_1000"));  // the region after copy_1000
  CHECK(merged("c_12", "c_2"));
  CHECK_FALSE(merged("c_7", "c_2"));  // an output
  CHECK_FALSE(merged("a_699", "a_4"));  // NaN
  CHECK(one.merged.size() > 5000);
}
