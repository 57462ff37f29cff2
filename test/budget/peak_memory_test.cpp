#include <doctest/doctest.h>

#include "budget/peak_memory.h"
#include "partition/partitioner.h"
#include "prepare/prepare.h"
#include "prepare/text_graph.h"

using namespace pt;

namespace {

// x -> a = relu(x) -> b = relu(a) -> loss = sum(b); grad_x = tangents_1 * b.
// Every tensor is float32 [4] (16 bytes) except loss (float32 [], 4 bytes).
const char* kChain = R"(
num_fwd_outputs: 1
$P(x)
$P(tangents_1)
nodes { name: "a" op: "call_function" target: "aten.relu.default" args { node: "x" } $T op_tags: "pointwise" }
nodes { name: "b" op: "call_function" target: "aten.relu.default" args { node: "a" } $T op_tags: "pointwise" }
nodes { name: "loss" op: "call_function" target: "aten.sum.default" args { node: "b" }
        val { tensor { dtype: "float32" device: "cpu" } } op_tags: "reduction" }
nodes { name: "grad_x" op: "call_function" target: "aten.mul.Tensor" args { node: "tangents_1" } args { node: "b" } $T op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "loss" } items { node: "grad_x" } } } }
)";

}  // namespace

TEST_CASE("peak memory follows liveness through the forward and the backward") {
  const Settings s;
  const PrepareResult p = prepare(test::graph_from_text(kChain), s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  REQUIRE(r.extraction.fw_saved_outputs().size() == 1);
  REQUIRE(g[r.extraction.fw_saved_outputs()[0]].name == "x");  // a and b are recomputed

  const PeakMemory m = simulate_peak_memory(g, r.classification, r.extraction, s.op_classes);
  CHECK(m.input_bytes == 16);
  CHECK(m.saved_bytes == 16);
  // Forward: x (16) + a (16) + b (16) = 48 while b runs; a is freed after it.
  CHECK(m.forward_peak_bytes == 48);
  // Backward: x + loss (held) + tangents_1 = 36; recomputing a and b adds 32.
  CHECK(m.backward_peak_bytes == 68);
  CHECK(m.peak_bytes == 68);
  CHECK(m.peak_pass == "backward");
  CHECK(m.peak_at == "b");
}

TEST_CASE("saving a value keeps it alive from the forward into the backward") {
  // With relu out of the recomputable set, b is banned (not in allowlist)
  // and saved: it stays alive through the end of the forward.
  Settings s;
  s.set("recomputable_ops.remove", "aten.relu");
  const PrepareResult p = prepare(test::graph_from_text(kChain), s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  REQUIRE(r.extraction.fw_saved_outputs().size() == 1);
  REQUIRE(g[r.extraction.fw_saved_outputs()[0]].name == "b");
  const PeakMemory m = simulate_peak_memory(g, r.classification, r.extraction, s.op_classes);
  CHECK(m.saved_bytes == 16);
  CHECK(m.forward_peak_bytes == 48);  // x, a, b while b runs
  // Backward starts with x, b (saved), loss and tangents_1 = 52; grad_x adds 16.
  CHECK(m.backward_peak_bytes == 68);
  CHECK(m.peak_at == "grad_x");
}

TEST_CASE("the backward runs a recomputed node just before its first reader, as PyTorch reorders it") {
  // a = relu(x) is recomputed; the backward first builds a 12,000-byte
  // temporary g1 (freed after g2), then reads a. In joint-graph order a would
  // be live from the backward's start, next to g1 and g2 (peak 24,004 B);
  // placed before its reader grad_x, it is not (peak 20,004 B at g2).
  const char* graph = R"(
num_fwd_outputs: 1
nodes { name: "x" op: "placeholder" target: "x" val { tensor { shape: [1000] stride: [1] dtype: "float32" device: "cpu" } } }
nodes { name: "tangents_1" op: "placeholder" target: "tangents_1" val { tensor { dtype: "float32" device: "cpu" } } }
nodes { name: "a" op: "call_function" target: "aten.relu.default" args { node: "x" }
        val { tensor { shape: [1000] stride: [1] dtype: "float32" device: "cpu" } } op_tags: "pointwise" }
nodes { name: "loss" op: "call_function" target: "aten.sum.default" args { node: "a" }
        val { tensor { dtype: "float32" device: "cpu" } } op_tags: "reduction" }
nodes { name: "g1" op: "call_function" target: "aten.mul.Tensor" args { node: "tangents_1" } args { node: "x" }
        val { tensor { shape: [3000] stride: [1] dtype: "float32" device: "cpu" } } op_tags: "pointwise" }
nodes { name: "g2" op: "call_function" target: "aten.relu.default" args { node: "g1" }
        val { tensor { shape: [1000] stride: [1] dtype: "float32" device: "cpu" } } op_tags: "pointwise" }
nodes { name: "grad_x" op: "call_function" target: "aten.mul.Tensor" args { node: "g2" } args { node: "a" }
        val { tensor { shape: [1000] stride: [1] dtype: "float32" device: "cpu" } } op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "loss" } items { node: "grad_x" } } } }
)";
  const Settings s;
  const PrepareResult p = prepare(test::graph_from_text(graph), s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  REQUIRE(r.extraction.recomputed.size() == 1);
  REQUIRE(g[r.extraction.recomputed[0]].name == "a");
  const PeakMemory m = simulate_peak_memory(g, r.classification, r.extraction, s.op_classes);
  // Backward start: x (4000) + tangents_1 (4); then g1 (12000) and g2 (4000).
  CHECK(m.backward_peak_bytes == 20004);
  CHECK(m.peak_at == "g2");
}
