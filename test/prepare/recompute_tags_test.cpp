#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "prepare/prepare.h"
#include "prepare/recompute_tags.h"
#include "prepare/text_graph.h"

using pt::test::graph_from_text;
using Saves = std::vector<std::pair<std::string, std::string>>;

namespace {

// A call_function on x (or `arg`) with a recompute tag and region.
std::string tagged(const std::string& name, const std::string& arg, const std::string& tag, int region,
                   const std::string& extra = "") {
  std::string s = "nodes { name: \"" + name + "\" op: \"call_function\" target: \"aten.relu.default\" args { node: \"" +
                  arg + "\" } $T ";
  if (!tag.empty()) s += "recompute: \"" + tag + "\" ac_graph_id: " + std::to_string(region) + " ";
  return s + extra + "}\n";
}

std::vector<std::string> names(const Saves& saves) {
  std::vector<std::string> out;
  for (const auto& [n, why] : saves) out.push_back(n);
  return out;
}

}  // namespace

TEST_CASE("checkpoint clean-up stashes the boundary between adjacent ac_graph_id regions") {
  const auto r = pt::prepare(
      graph_from_text("$P(x)\n" + tagged("a1", "x", "PREFER_RECOMPUTE", 1) +
                      tagged("a2", "a1", "PREFER_RECOMPUTE", 1) +   // same region: no boundary
                      tagged("b1", "a2", "MUST_RECOMPUTE", 2) +     // a2 -> b1 crosses 1 -> 2
                      tagged("b2", "b1", "PREFER_RECOMPUTE", 1) +   // b1 -> b2 goes back: not a boundary
                      tagged("u", "b2", "", 0) +                    // untagged in between
                      tagged("c1", "u", "PREFER_RECOMPUTE", 3) +
                      tagged("d1", "c1", "PREFER_SAVE", 4) +        // a user that is not recompute-tagged
                      R"(nodes { name: "output" op: "output" args { list { items { node: "d1" } } } }
                         num_fwd_outputs: 1)"),
      pt::Settings{});
  CHECK(names(r.must_save) == std::vector<std::string>{"a2"});
  const pt::Graph& g = r.graph;
  CHECK(g[g.find("a2")].recompute == pt::Recompute::MustSave);
  CHECK(g.record(g.find("a2")).recompute() == "MUST_SAVE");
  CHECK(g[g.find("b1")].recompute == pt::Recompute::MustRecompute);
}

TEST_CASE("checkpoint clean-up saves a hooked region output with no recompute-tagged user") {
  const std::string tail = R"(nodes { name: "output" op: "output" args { list { items { node: "n" } } } }
                              num_fwd_outputs: 1)";
  const auto r = pt::prepare(graph_from_text("$P(x)\n" +
                                             tagged("h", "x", "PREFER_RECOMPUTE", 1, "has_backward_hook: true") +
                                             tagged("k", "h", "PREFER_RECOMPUTE", 1, "has_backward_hook: true") +
                                             tagged("n", "k", "", 0) + tail),
                             pt::Settings{});
  CHECK(names(r.must_save) == std::vector<std::string>{"k"});  // h has a recompute-tagged user
}

TEST_CASE("checkpoint clean-up only runs when some node is recompute-tagged") {
  const auto g = graph_from_text("$P(x)\n" + tagged("h", "x", "", 0, "has_backward_hook: true") +
                                 R"(nodes { name: "output" op: "output" args { list { items { node: "h" } } } }
                                    num_fwd_outputs: 1)");
  CHECK(pt::must_save_changes(g).empty());
}

TEST_CASE("checkpoint clean-up for the default partition also stashes region inputs") {
  const auto g = graph_from_text("$P(x)\n" + tagged("in", "x", "", 0) + tagged("r", "in", "PREFER_RECOMPUTE", 1) +
                                 R"(nodes { name: "output" op: "output" args { list { items { node: "r" } } } }
                                    num_fwd_outputs: 1)");
  CHECK(pt::must_save_changes(g).empty());
  pt::RecomputeTagOptions options;
  options.default_partition = true;
  const auto changes = pt::must_save_changes(g, options);
  REQUIRE(changes.size() == 1);  // `in` feeds the region; x only feeds `in`
  CHECK(g[changes[0].node].name == "in");

  // An untagged getitem of a checkpointed multi-output node is not a region input.
  const auto g2 = graph_from_text(R"(
    $P(x)
    nodes { name: "vm" op: "call_function" target: "aten.var_mean.correction" args { node: "x" }
            val { tuple { items { $t } items { $t } } } recompute: "PREFER_RECOMPUTE" ac_graph_id: 1 }
    nodes { name: "g0" op: "call_function" target: "operator.getitem" args { node: "vm" } args { int: 0 } $T }
    nodes { name: "r" op: "call_function" target: "aten.rsqrt.default" args { node: "g0" } $T
            recompute: "PREFER_RECOMPUTE" ac_graph_id: 1 }
    nodes { name: "output" op: "output" args { list { items { node: "r" } } } }
    num_fwd_outputs: 1
  )");
  const auto changes2 = pt::must_save_changes(g2, options);
  REQUIRE(changes2.size() == 1);  // the region's real input x; not g0
  CHECK(g2[changes2[0].node].name == "x");
}

TEST_CASE("collectives are saved unless recompute-tagged") {
  const auto g = graph_from_text(R"(
    $P(x)
    nodes { name: "ar" op: "call_function" target: "_c10d_functional.all_reduce.default"
            args { node: "x" } args { str: "sum" } args { str: "0" } $T }
    nodes { name: "ag" op: "call_function" target: "_c10d_functional.all_gather_into_tensor.default"
            args { node: "x" } args { int: 2 } args { str: "0" } $T recompute: "PREFER_RECOMPUTE" ac_graph_id: 1 }
    nodes { name: "w" op: "call_function" target: "_c10d_functional.wait_tensor.default" args { node: "ar" } $T }
    nodes { name: "output" op: "output" args { list { items { node: "w" } items { node: "ag" } } } }
    num_fwd_outputs: 2
  )");
  std::vector<std::string> saved;
  for (const auto& c : pt::must_save_changes(g)) saved.emplace_back(g[c.node].name);
  CHECK(saved == std::vector<std::string>{"ar", "w"});
  pt::RecomputeTagOptions options;
  options.force_save_collectives = false;
  CHECK(pt::must_save_changes(g, options).empty());
}

TEST_CASE("non-tuple results of with_effects, read through getitems, are saved") {
  const auto g = graph_from_text(R"(
    $P(token)
    $P(x)
    nodes { name: "fx" op: "call_function" target: "higher_order.with_effects" args { node: "token" }
            args { str: "aten._print.default" } args { node: "x" }
            val { tuple { items { $t } items { tuple { items { $t } items { $t } } } } } }
    nodes { name: "tok" op: "call_function" target: "operator.getitem" args { node: "fx" } args { int: 0 } $T }
    nodes { name: "res" op: "call_function" target: "operator.getitem" args { node: "fx" } args { int: 1 }
            val { tuple { items { $t } items { $t } } } }
    nodes { name: "r0" op: "call_function" target: "operator.getitem" args { node: "res" } args { int: 0 } $T }
    nodes { name: "r1" op: "call_function" target: "operator.getitem" args { node: "res" } args { int: 1 } $T }
    nodes { name: "bw" op: "call_function" target: "higher_order.with_effects" args { node: "tok" }
            args { str: "aten._print.default" } partitioner_tag: "is_backward"
            val { tuple { items { $t } items { $t } } } }
    nodes { name: "bw0" op: "call_function" target: "operator.getitem" args { node: "bw" } args { int: 0 } $T }
    nodes { name: "output" op: "output" args { list { items { node: "r0" } items { node: "r1" } items { node: "bw0" } } } }
    num_fwd_outputs: 3
  )");
  std::vector<std::string> saved;
  for (const auto& c : pt::must_save_changes(g)) saved.emplace_back(g[c.node].name);
  CHECK(saved == std::vector<std::string>{"tok", "r0", "r1"});
}

TEST_CASE("the source of a forward copy_ into a primal also mutated in the backward is saved") {
  const auto g = graph_from_text(R"(
    $P(primals_1)
    $P(tangents_1)
    nodes { name: "src" op: "call_function" target: "aten.mul.Tensor" args { node: "primals_1" } args { int: 2 } $T }
    nodes { name: "early" op: "call_function" target: "aten.copy_.default" mutable: true partitioner_tag: "must_be_in_forward"
            args { node: "primals_1" } args { node: "primals_1" } $T }
    nodes { name: "g" op: "call_function" target: "aten.mul.Tensor" args { node: "tangents_1" } args { int: 2 } $T }
    nodes { name: "fw_copy" op: "call_function" target: "aten.copy_.default" mutable: true
            partitioner_tag: "must_be_in_forward" args { node: "primals_1" } args { node: "src" } $T }
    nodes { name: "bw_copy" op: "call_function" target: "aten.copy_.default" mutable: true
            partitioner_tag: "must_be_in_backward" args { node: "primals_1" } args { node: "g" } $T }
    nodes { name: "output" op: "output" args { list { items { node: "src" } items { node: "g" } } } }
    num_fwd_outputs: 1
  )");
  const auto changes = pt::must_save_changes(g);
  REQUIRE(changes.size() == 1);
  CHECK(g[changes[0].node].name == "src");
}
