// The small joint graph the peak-memory and timeline tests share:
// x -> a = relu(x) -> b = relu(a) -> loss = sum(b); grad_x = tangents_1 * b.
// Every tensor is float32 [4] (16 bytes) except loss (float32 [], 4 bytes).
// $P and $T are prepare/text_graph.h's placeholder and tensor-value macros.
#pragma once

namespace pt::test {

inline constexpr const char* kChainGraph = R"(
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

}  // namespace pt::test
