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

namespace {

// e = exp(x) is saved (exp taken out of the recomputable set); the backward
// computes u = tangents_1 * e in registers and stores w from u. `w_val` is
// w's dtype: float32 (16 bytes, e's size) or bfloat16 (8 bytes).
std::string saved_then_fused(const std::string& w_target, const std::string& w_dtype) {
  const std::string f4 = R"(val { tensor { shape: [4] stride: [1] dtype: "float32" device: "cpu" } })";
  return R"(
num_fwd_outputs: 1
nodes { name: "x" op: "placeholder" target: "x" )" + f4 + R"( }
nodes { name: "tangents_1" op: "placeholder" target: "tangents_1" val { tensor { dtype: "float32" device: "cpu" } } }
nodes { name: "e" op: "call_function" target: "aten.exp.default" args { node: "x" } )" + f4 + R"( op_tags: "pointwise" }
nodes { name: "loss" op: "call_function" target: "aten.sum.default" args { node: "e" }
        val { tensor { dtype: "float32" device: "cpu" } } op_tags: "reduction" }
nodes { name: "u" op: "call_function" target: "aten.mul.Tensor" args { node: "tangents_1" } args { node: "e" } )" + f4 +
         R"( op_tags: "pointwise" }
nodes { name: "w" op: "call_function" target: ")" + w_target + R"(" args { node: "u" }
        val { tensor { shape: [4] stride: [1] dtype: ")" + w_dtype + R"(" device: "cpu" } } op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "loss" } items { node: "w" } } } }
)";
}

// Backward peak with u kept in registers (only w is stored in the backward).
PeakMemory fused_backward_peak(const std::string& w_target, const std::string& w_dtype, bool sources_live = true,
                               bool in_place = true) {
  Settings s;
  s.set("recomputable_ops.remove", "aten.exp");
  const PrepareResult p = prepare(test::graph_from_text(saved_then_fused(w_target, w_dtype)), s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  REQUIRE(r.extraction.fw_saved_outputs().size() == 1);
  REQUIRE(g[r.extraction.fw_saved_outputs()[0]].name == "e");
  Materialized m{std::vector<bool>(static_cast<size_t>(g.size()), true),
                 std::vector<bool>(static_cast<size_t>(g.size()), true)};
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].name == "u") m.backward[id] = false;
  }
  m.sources_live_to_readers = sources_live;
  m.write_in_place = in_place;
  return simulate_peak_memory(g, r.classification, r.extraction, s.op_classes, m);
}

}  // namespace

TEST_CASE("a value kept in registers keeps what it is computed from live until its reader runs") {
  // Backward start: x (16, a primal), e (16, saved), loss (4), tangents_1 (4)
  // = 40. w (bf16, 8 B) computes u again from e, so e is still live: 48.
  // (Freeing e at u, its only direct reader, gave 40 - 16 + 8.)
  const PeakMemory m = fused_backward_peak("prims.convert_element_type.default", "bfloat16");
  CHECK(m.backward_peak_bytes == 48);
  CHECK(m.peak_at == "w");
  // sources_live_to_readers off: e is freed at u; the backward's start stays the peak.
  CHECK(fused_backward_peak("prims.convert_element_type.default", "bfloat16", false).backward_peak_bytes == 40);
}

TEST_CASE("a fused output of a dying buffer's size and dtype is written in place (Inductor's inplace_buffers)") {
  // w (float32, 16 B) is the last reader of the saved e, which the backward
  // owns: w takes e's memory and the backward never goes above its start.
  const PeakMemory m = fused_backward_peak("aten.relu.default", "float32");
  CHECK(m.backward_peak_bytes == 40);
  // write_in_place off: e and w are live together.
  CHECK(fused_backward_peak("aten.relu.default", "float32", true, false).backward_peak_bytes == 56);
}
