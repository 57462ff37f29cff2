#include <doctest/doctest.h>

#include <string>

#include "estimate/memory_timeline.h"
#include "estimate/peak_memory.h"
#include "estimate/scatter_copies.h"
#include "partition/partitioner.h"
#include "prepare/prepare.h"
#include "prepare/text_graph.h"

using namespace pt;

namespace {

// Forward only: two index_puts (of v, then w) into copies of the primal z
// (16 bytes), with `between` float32 [4] values (16 bytes each, each read
// by the next) computed between them, every value stored. Returns the step
// where the second copy is allocated minus the step of the first index_put.
int second_copy_offset(int between, bool fuse) {
  const std::string f4 = R"(val { tensor { shape: [4] stride: [1] dtype: "float32" device: "cpu" } })";
  const std::string i2 = R"(val { tensor { shape: [2] stride: [1] dtype: "int64" device: "cpu" } })";
  std::string text = R"(
num_fwd_outputs: 1
nodes { name: "x" op: "placeholder" target: "x" )" + f4 + R"( }
nodes { name: "z" op: "placeholder" target: "z" )" + f4 + R"( }
nodes { name: "idx" op: "placeholder" target: "idx" )" + i2 + R"( }
nodes { name: "v" op: "placeholder" target: "v" val { tensor { shape: [2] stride: [1] dtype: "float32" device: "cpu" } } }
nodes { name: "w" op: "placeholder" target: "w" val { tensor { shape: [2] stride: [1] dtype: "float32" device: "cpu" } } }
nodes { name: "p1" op: "call_function" target: "aten.index_put.default" args { node: "z" }
        args { list { items { node: "idx" } } } args { node: "v" } args { bool: true } )" + f4 + R"( }
nodes { name: "c0" op: "call_function" target: "aten.relu.default" args { node: "x" } )" + f4 + R"( op_tags: "pointwise" }
)";
  for (int i = 1; i <= between; ++i) {
    text += "nodes { name: \"c" + std::to_string(i) + "\" op: \"call_function\" target: \"aten.exp.default\" args { node: \"c" +
            std::to_string(i - 1) + "\" } " + f4 + " op_tags: \"pointwise\" }\n";
  }
  text += R"(nodes { name: "p2" op: "call_function" target: "aten.index_put.default" args { node: "z" }
        args { list { items { node: "idx" } } } args { node: "w" } args { bool: true } )" + f4 + R"( }
nodes { name: "a" op: "call_function" target: "aten.add.Tensor" args { node: "p1" } args { node: "p2" } )" + f4 +
          R"( op_tags: "pointwise" }
nodes { name: "b" op: "call_function" target: "aten.add.Tensor" args { node: "a" } args { node: "c)" +
          std::to_string(between) + R"(" } )" + f4 + R"( op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "b" } } } }
)";
  const Settings s;
  const PrepareResult p = prepare(test::graph_from_text(text), s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  Materialized m{Flags(static_cast<size_t>(g.size()), true), Flags(static_cast<size_t>(g.size()), true)};
  m.fuse_scatter_copies = fuse;
  MemoryTimeline t;
  simulate_peak_memory(g, r.classification, r.extraction, s.op_classes, m, &t);
  int first = -1, copied = -1;
  for (size_t step = 0; step < t.backward_from; ++step) {
    if (g[t.steps[step]].name == "p1") first = static_cast<int>(step);
  }
  for (const ValueLifetime& v : t.lifetimes) {
    if (g[v.node].name == "p2") copied = v.first;
  }
  REQUIRE(first >= 0);
  REQUIRE(copied >= 0);
  return copied - first;
}

}  // namespace

TEST_CASE("copies of one buffer for functional scatters are allocated together when Inductor fuses them") {
  // 10 buffers apart: p2's copy of z runs in p1's kernel.
  CHECK(second_copy_offset(10, true) == 0);
  // 70 buffers apart (more than 64): each copy at its own scatter.
  CHECK(second_copy_offset(70, true) > 70);
  // fuse_scatter_copies off.
  CHECK(second_copy_offset(10, false) > 10);
}

namespace {

// A zero fill f the pass computes, copied by two index_puts (p1, p2), then
// read by an index_add (an ATen fallback, which reads a buffer of it).
struct FillPass {
  Graph g;
  std::vector<NodeId> order;  // every node but the output, graph order
  Flags input;
  std::vector<NodeId> root;  // each value its own buffer
};

FillPass fill_pass() {
  const std::string f4 = R"(val { tensor { shape: [4] stride: [1] dtype: "float32" device: "cpu" } })";
  const std::string f2 = R"(val { tensor { shape: [2] stride: [1] dtype: "float32" device: "cpu" } })";
  const std::string text = R"(
num_fwd_outputs: 1
nodes { name: "idx" op: "placeholder" target: "idx" val { tensor { shape: [2] stride: [1] dtype: "int64" device: "cpu" } } }
nodes { name: "v" op: "placeholder" target: "v" )" + f2 + R"( }
nodes { name: "f" op: "call_function" target: "aten.full.default" args { list { items { int: 4 } } } args { int: 0 } )" +
                           f4 + R"( }
nodes { name: "p1" op: "call_function" target: "aten.index_put.default" args { node: "f" }
        args { list { items { node: "idx" } } } args { node: "v" } args { bool: true } )" + f4 + R"( }
nodes { name: "p2" op: "call_function" target: "aten.index_put.default" args { node: "f" }
        args { list { items { node: "idx" } } } args { node: "v" } args { bool: true } )" + f4 + R"( }
nodes { name: "a" op: "call_function" target: "aten.add.Tensor" args { node: "p1" } args { node: "p2" } )" + f4 +
                           R"( op_tags: "pointwise" }
nodes { name: "ia" op: "call_function" target: "aten.index_add.default" args { node: "f" } args { int: 0 }
        args { node: "idx" } args { node: "v" } )" + f4 + R"( }
nodes { name: "b" op: "call_function" target: "aten.add.Tensor" args { node: "a" } args { node: "ia" } )" + f4 +
                           R"( op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "b" } } } }
)";
  FillPass p{test::graph_from_text(text), {}, {}, {}};
  p.input.assign(static_cast<size_t>(p.g.size()), false);
  for (NodeId id = 0; id < p.g.output_node(); ++id) {
    p.order.push_back(id);
    p.root.push_back(id);
    if (p.g[id].op == OpKind::Placeholder) p.input[id] = true;
  }
  p.root.push_back(p.g.output_node());
  return p;
}

std::vector<std::string> names(const FillPass& p) {
  std::vector<std::string> out;
  for (NodeId id : p.order) out.emplace_back(p.g[id].name);
  return out;
}

}  // namespace

TEST_CASE("copies of a fill the pass computes are not fused: each scatter writes the constant into its own buffer") {
  const FillPass p = fill_pass();
  const Flags item(static_cast<size_t>(p.g.size()), false);
  const auto fused = scatter_copy_positions(p.g, p.order, p.input, p.root, {}, item, false);
  const auto own = scatter_copy_positions(p.g, p.order, p.input, p.root, {}, item, true);
  const size_t p2 = static_cast<size_t>(p.g.find("p2"));  // graph order is the order
  REQUIRE(fused.size() == p.order.size());
  CHECK(fused[p2] == p.g.find("p1"));
  CHECK((own.empty() || own[p2] == -1));
}

TEST_CASE("a fill runs at its first reader that does not copy it") {
  FillPass p = fill_pass();
  run_fills_at_readers(p.g, p.input, p.order);
  CHECK(names(p) == std::vector<std::string>{"idx", "v", "p1", "p2", "a", "f", "ia", "b"});
}
