#include <doctest/doctest.h>

#include "estimate/peak_memory.h"
#include "partition/partitioner.h"
#include "prepare/prepare.h"
#include "estimate/chain_graph.h"
#include "prepare/text_graph.h"
#include "estimate/bandwidth_model.h"
#include "graph/graph_io.h"
#include "pipeline/pipeline.h"

using namespace pt;

namespace {

// The shared chain (estimate/chain_graph.h).
const char* kChain = test::kChainGraph;

// `text` prepared and partitioned with aten.exp out of the recomputable
// set, so that the forward saves the exp's value `saved`, and only it.
struct ExpSaved {
  Settings settings;
  PrepareResult prepared;
  PartitionResult result;
};
ExpSaved partition_saving_exp(const std::string& text, const std::string& saved) {
  ExpSaved out;
  out.settings.set("recomputable_ops.remove", "aten.exp");
  out.prepared = prepare(test::graph_from_text(text), out.settings);
  out.result = partition_graph(out.prepared.graph, out.settings);
  REQUIRE(out.result.extraction.fw_saved_outputs().size() == 1);
  REQUIRE(out.prepared.graph[out.result.extraction.fw_saved_outputs()[0]].name == saved);
  return out;
}

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

namespace {

// a = relu(x) is recomputed; the backward first builds a 12,000-byte
// temporary g1 (freed after g2), then reads a (with `backward_only_exp`, b =
// exp(a), which only the backward reads) in grad_x.
std::string recompute_after_temporary(bool backward_only_exp) {
  const std::string f1000 = R"(val { tensor { shape: [1000] stride: [1] dtype: "float32" device: "cpu" } })";
  const std::string last = backward_only_exp ? "b" : "a";
  return R"(
num_fwd_outputs: 1
nodes { name: "x" op: "placeholder" target: "x" )" + f1000 + R"( }
nodes { name: "tangents_1" op: "placeholder" target: "tangents_1" val { tensor { dtype: "float32" device: "cpu" } } }
nodes { name: "a" op: "call_function" target: "aten.relu.default" args { node: "x" } )" + f1000 + R"( op_tags: "pointwise" }
nodes { name: "loss" op: "call_function" target: "aten.sum.default" args { node: "a" }
        val { tensor { dtype: "float32" device: "cpu" } } op_tags: "reduction" }
)" + (backward_only_exp ? R"(nodes { name: "b" op: "call_function" target: "aten.exp.default" args { node: "a" } )" + f1000 +
                              R"( op_tags: "pointwise" })"
                        : std::string()) +
         R"(
nodes { name: "g1" op: "call_function" target: "aten.mul.Tensor" args { node: "tangents_1" } args { node: "x" }
        val { tensor { shape: [3000] stride: [1] dtype: "float32" device: "cpu" } } op_tags: "pointwise" }
nodes { name: "g2" op: "call_function" target: "aten.relu.default" args { node: "g1" } )" + f1000 + R"( op_tags: "pointwise" }
nodes { name: "grad_x" op: "call_function" target: "aten.mul.Tensor" args { node: "g2" } args { node: ")" + last +
         R"(" } )" + f1000 + R"( op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "loss" } items { node: "grad_x" } } } }
)";
}

// The backward peak of recompute_after_temporary under `m`'s rules.
PeakMemory reorder_peak(bool backward_only_exp, const Materialized& m = {}) {
  const Settings s;
  const PrepareResult p = prepare(test::graph_from_text(recompute_after_temporary(backward_only_exp)), s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  REQUIRE(r.extraction.recomputed.size() == 1);
  REQUIRE(g[r.extraction.recomputed[0]].name == "a");
  return simulate_peak_memory(g, r.classification, r.extraction, s.op_classes, m);
}

}  // namespace

TEST_CASE("the backward runs a recomputed node just before its first reader, as PyTorch reorders it") {
  // In joint-graph order a would be live from the backward's start, next to
  // g1 and g2 (peak 24,004 B); placed before its reader grad_x, it is not.
  const PeakMemory m = reorder_peak(false);
  // Backward start: x (4000) + tangents_1 (4); then g1 (12000) and g2 (4000).
  CHECK(m.backward_peak_bytes == 20004);
  CHECK(m.peak_at == "g2");
}

TEST_CASE("with backward_order_from_tangents the backward starts at the first node that reads a tangent") {
  // b is no recomputation (the forward does not compute it), yet it sits in
  // the forward's part of the graph: the old walk starts there and computes
  // a and b before g1, and b (4000) is live next to g1 and g2.
  CHECK(reorder_peak(true).backward_peak_bytes == 24004);
  // PyTorch starts at g1, the first reader of tangents_1, and computes a and
  // b only for grad_x, after g1 is freed.
  Materialized from_tangents;
  from_tangents.order_from_first_tangent_reader = true;
  const PeakMemory m = reorder_peak(true, from_tangents);
  CHECK(m.backward_peak_bytes == 20004);
  CHECK(m.peak_at == "g2");
}

TEST_CASE("a kernel's stored values are allocated when its first node runs, recomputed values at their own") {
  // Order from tangents: g1, g2, a, b, grad_x. With b (the backward's own
  // exp, 4000 B) in g1's kernel, b is allocated with g1, before that kernel
  // launches, and is live next to g1 and g2.
  Materialized m;
  m.order_from_first_tangent_reader = true;
  const Settings s;
  const Graph g = prepare(test::graph_from_text(recompute_after_temporary(true)), s).graph;
  m.backward_kernel.assign(static_cast<size_t>(g.size()), -1);
  m.backward_kernel[g.find("g1")] = 0;
  m.backward_kernel[g.find("b")] = 0;
  const PeakMemory launched = reorder_peak(true, m);
  CHECK(launched.backward_peak_bytes == 24004);
  CHECK(launched.peak_at == "g2");
  // The recomputed a in that kernel too: PyTorch emits a recomputation just
  // before its reader and Inductor fuses it there, so it stays at its node.
  m.backward_kernel[g.find("a")] = 0;
  CHECK(reorder_peak(true, m).backward_peak_bytes == 24004);
  // Without kernels every value is allocated at its own node.
  m.backward_kernel.clear();
  CHECK(reorder_peak(true, m).backward_peak_bytes == 20004);
}

namespace {

// e = exp(x) is saved (exp taken out of the recomputable set); the backward
// computes u = tangents_1 * e in registers and stores w from u. `w_val` is
// w's dtype: float32 (16 bytes, e's size) or bfloat16 (8 bytes).
// `e_returned`: the forward also returns e (whose gradient nothing reads).
std::string saved_then_fused(const std::string& w_target, const std::string& w_dtype, bool e_returned = false) {
  const std::string f4 = R"(val { tensor { shape: [4] stride: [1] dtype: "float32" device: "cpu" } })";
  return R"(
num_fwd_outputs: )" + std::string(e_returned ? "2" : "1") + R"(
nodes { name: "x" op: "placeholder" target: "x" )" + f4 + R"( }
nodes { name: "tangents_1" op: "placeholder" target: "tangents_1" val { tensor { dtype: "float32" device: "cpu" } } }
nodes { name: "e" op: "call_function" target: "aten.exp.default" args { node: "x" } )" + f4 + R"( op_tags: "pointwise" }
nodes { name: "loss" op: "call_function" target: "aten.sum.default" args { node: "e" }
        val { tensor { dtype: "float32" device: "cpu" } } op_tags: "reduction" }
nodes { name: "u" op: "call_function" target: "aten.mul.Tensor" args { node: "tangents_1" } args { node: "e" } )" + f4 +
         R"( op_tags: "pointwise" }
nodes { name: "w" op: "call_function" target: ")" + w_target + R"(" args { node: "u" }
        val { tensor { shape: [4] stride: [1] dtype: ")" + w_dtype + R"(" device: "cpu" } } op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "loss" } )" +
         std::string(e_returned ? "items { node: \"e\" } " : "") + R"(items { node: "w" } } } }
)";
}

// Backward peak with u kept in registers (only w is stored in the backward);
// `u_realized`: u is a buffer of w's kernel (FusionGroups::realized).
PeakMemory fused_backward_peak(const std::string& w_target, const std::string& w_dtype, bool sources_live = true,
                               bool in_place = true, bool u_realized = false) {
  const ExpSaved p = partition_saving_exp(saved_then_fused(w_target, w_dtype), "e");
  const Graph& g = p.prepared.graph;
  const PartitionResult& r = p.result;
  const Settings& s = p.settings;
  Materialized m{pt::Flags(static_cast<size_t>(g.size()), true),
                 pt::Flags(static_cast<size_t>(g.size()), true)};
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].name == "u") m.backward[id] = false;
  }
  m.sources_live_to_readers = sources_live;
  m.write_in_place = in_place;
  if (u_realized) {
    m.backward_realized.assign(static_cast<size_t>(g.size()), false);
    for (NodeId id = 0; id < g.size(); ++id) m.backward_realized[id] = g[id].name == "u";
  }
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

TEST_CASE("a saved value that the forward also returns is the caller's: the backward neither frees it nor writes into it") {
  // As with float32 w above, but e is also a forward output. AOTAutograd
  // does not donate such a buffer to the backward, so w gets memory of its
  // own and e stays live after w.
  const ExpSaved p = partition_saving_exp(saved_then_fused("aten.relu.default", "float32", true), "e");
  const Graph& g = p.prepared.graph;
  Materialized m{pt::Flags(static_cast<size_t>(g.size()), true), pt::Flags(static_cast<size_t>(g.size()), true)};
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].name == "u") m.backward[id] = false;
  }
  const PeakMemory peak = simulate_peak_memory(g, p.result.classification, p.result.extraction, p.settings.op_classes, m);
  // Backward start: x and e (16 each), loss and tangents_1 (4 each) = 40;
  // w adds its own 16. Written into e it stayed at 40.
  CHECK(peak.backward_peak_bytes == 56);
}

TEST_CASE("an output that reads the dying buffer only through a value its kernel realizes is not written in place") {
  // Inductor decides in-place writes per realized value, from the buffers
  // its own computation loads: w loads u's buffer, and u (float32 of e's
  // size, not stored) cannot take e either. e and w are live together.
  CHECK(fused_backward_peak("aten.relu.default", "float32", true, true, true).backward_peak_bytes == 56);
}

namespace {

// The cross-entropy backward's shape on four elements: the saved bfloat16
// e = exp(x) (exp taken out of the recomputable set) becomes the bfloat16
// gradient w of e's size through float32 arithmetic in one kernel:
// c = float32(e), m = c * tangents_1, then `links` additions of a constant,
// then w = bfloat16(last). Inductor's op count of the last addition: loads
// of e and tangents_1 (2), c and m (2), two per addition (the constant and
// the add): 4 + 2 * links.
std::string saved_then_long_chain(int links) {
  const std::string bf = R"(val { tensor { shape: [4] stride: [1] dtype: "bfloat16" device: "cpu" } })";
  std::string text = R"(
num_fwd_outputs: 1
nodes { name: "x" op: "placeholder" target: "x" )" + bf + R"( }
nodes { name: "tangents_1" op: "placeholder" target: "tangents_1" )" + bf + R"( }
nodes { name: "e" op: "call_function" target: "aten.exp.default" args { node: "x" } )" + bf + R"( op_tags: "pointwise" }
nodes { name: "y" op: "call_function" target: "aten.neg.default" args { node: "e" } )" + bf + R"( op_tags: "pointwise" }
nodes { name: "c" op: "call_function" target: "prims.convert_element_type.default" args { node: "e" }
        args { dtype: "float32" } $T op_tags: "pointwise" }
nodes { name: "m" op: "call_function" target: "aten.mul.Tensor" args { node: "c" } args { node: "tangents_1" } $T
        op_tags: "pointwise" }
)";
  std::string last = "m";
  for (int i = 1; i <= links; ++i) {
    const std::string name = "a" + std::to_string(i);
    text += "nodes { name: \"" + name + "\" op: \"call_function\" target: \"aten.add.Tensor\" args { node: \"" + last +
            "\" } args { float: " + std::to_string(i) + ".5 } $T op_tags: \"pointwise\" }\n";
    last = name;
  }
  text += R"(nodes { name: "w" op: "call_function" target: "prims.convert_element_type.default" args { node: ")" + last +
          R"(" } args { dtype: "bfloat16" } )" + bf + R"( op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "y" } items { node: "w" } } } }
)";
  return text;
}

BandwidthOptions realizing_large_expressions() {
  BandwidthOptions o;
  o.realize_large_expressions = true;
  return o;
}

// The backward peak as the report computes it: the bandwidth model's
// kernels decide what is stored and realized.
PeakMemory chain_backward_peak(int links, const BandwidthOptions& o = realizing_large_expressions()) {
  const ExpSaved p = partition_saving_exp(saved_then_long_chain(links), "e");
  const Graph& g = p.prepared.graph;
  const PartitionResult& r = p.result;
  const Settings& s = p.settings;
  const Device device{"test", 1e12, 1e15, 1e15};
  return fused_peak_memory(g, r, s.op_classes, estimate_bandwidth(g, r, s.op_classes, device, o), o);
}

}  // namespace

TEST_CASE("a gradient past Inductor's 30 ops is realized in float32 and not written into the bfloat16 input") {
  // Backward start: x (a primal), e (saved), y (the forward's output) and
  // tangents_1, 8 bytes each: 32. 13 additions: the last one is 30 ops,
  // inlined into w, which loads e itself and takes over its memory.
  const PeakMemory inlined = chain_backward_peak(13);
  CHECK(inlined.backward_peak_bytes == 32);
  // 14 additions: 32 ops. Inductor realizes the float32 sum in w's kernel;
  // w reads that buffer, not e, and gets memory of its own: e's 8 bytes more.
  const PeakMemory realized = chain_backward_peak(14);
  CHECK(realized.backward_peak_bytes == 40);
  // w is allocated when its kernel launches, at the kernel's first node c
  // (allocate_at_kernel_launch); each at its own node, the peak is at w.
  CHECK(realized.peak_at == "c");
  BandwidthOptions per_node = realizing_large_expressions();
  per_node.allocate_at_kernel_launch = false;
  CHECK(chain_backward_peak(14, per_node).peak_at == "w");
  // realize_large_expressions off: the long chain is inlined too.
  BandwidthOptions off;
  off.realize_large_expressions = false;
  CHECK(chain_backward_peak(14, off).backward_peak_bytes == 32);
}

TEST_CASE("without sources_live_to_readers a value kept in registers is no buffer to write in place") {
  // With the rule off, a fused output's reads also name the unallocated
  // values it reads; one taking such a value "over" allocated nothing and
  // freed its own bytes later: on resnet18 the live total wrapped below zero
  // (a peak of 1.8e19 bytes). Every value's bytes together bound the peak.
  const auto loaded = load_graph_file(std::string(PT_TEST_DIR) + "/corpus/resnet18.pb", Format::Binary);
  for (const double budget : {1.0, 0.5}) {
    Settings s;
    s.activation_memory_budget = budget;
    const Partitioned p = partition_joint(loaded.graph, s);
    uint64_t all_values = 0;
    for (NodeId id = 0; id < p.prepared.graph.size(); ++id) all_values += p.prepared.graph[id].size_bytes;
    BandwidthOptions o;
    o.sources_live_to_readers = false;
    const PeakMemory off =
        estimate_bandwidth_and_peak(p.prepared.graph, p.result, s.op_classes, parse_device("h100"), o).memory;
    CHECK(off.peak_bytes >= off.input_bytes);
    CHECK(off.peak_bytes <= all_values);
    CHECK(off.backward_peak_bytes <= all_values);
  }
}

TEST_CASE("each gradient of a convolution_backward is freed on its own: a returned weight gradient holds no input gradient") {
  // resnet18: every convolution_backward returns (grad_input, grad_weight);
  // the step returns only the weight gradients, whose bytes are what stays
  // live as gradients at the step's end. As one buffer, each returned
  // weight gradient held its layer's input gradient to the end.
  const auto loaded = load_graph_file(std::string(PT_TEST_DIR) + "/corpus/resnet18.pb", Format::Binary);
  const Settings s;
  const Partitioned p = partition_joint(loaded.graph, s);
  const Graph& g = p.prepared.graph;
  uint64_t returned = 0, input_gradients = 0;
  for (NodeId id : p.result.classification.bwd_outputs) {
    if (id != kNoNode) returned += g[id].size_bytes;
  }
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].packet == "aten.convolution_backward" && g[id].value_kind == ValueKind::Tuple) {
      input_gradients += g[id].size_bytes;
    }
  }
  REQUIRE(input_gradients > returned);
  MemoryTimeline t;
  const PeakMemory m =
      estimate_bandwidth_and_peak(g, p.result, s.op_classes, parse_device("h100"), {}, PassDetail::Kernels, &t).memory;
  const std::vector<CategoryBytes> steps = bytes_by_step(t);
  REQUIRE(!steps.empty());
  CHECK(steps.back()[static_cast<size_t>(MemoryCategory::Gradient)] <= returned);
  uint64_t at_peak = 0;
  for (const LiveValue& v : live_at_peak(g, t)) at_peak += v.bytes;
  CHECK(at_peak == m.peak_bytes);
}

namespace {

// A softmax backward as PyTorch decomposes it, on [4, 4] float32: the saved
// p = exp(x) (exp taken out of the recomputable set), m = p * tangents_1,
// s = sum(m, 1), grad = fma(-p, s, m). prims.fma is tagged pointwise but
// in no class of PyTorch's partitioner.
PeakMemory softmax_backward_peak(const BandwidthOptions& o, std::vector<bool>* stored = nullptr) {
  const std::string t44 = R"(val { tensor { shape: [4, 4] stride: [4, 1] dtype: "float32" device: "cpu" } })";
  const std::string text = R"(
num_fwd_outputs: 1
nodes { name: "x" op: "placeholder" target: "x" )" + t44 + R"( }
nodes { name: "tangents_1" op: "placeholder" target: "tangents_1" val { tensor { dtype: "float32" device: "cpu" } } }
nodes { name: "p" op: "call_function" target: "aten.exp.default" args { node: "x" } )" + t44 + R"( op_tags: "pointwise" }
nodes { name: "loss" op: "call_function" target: "aten.sum.default" args { node: "p" }
        val { tensor { dtype: "float32" device: "cpu" } } op_tags: "reduction" }
nodes { name: "m" op: "call_function" target: "aten.mul.Tensor" args { node: "p" } args { node: "tangents_1" } )" +
                           t44 + R"( op_tags: "pointwise" }
nodes { name: "s" op: "call_function" target: "aten.sum.dim_IntList" args { node: "m" } args { list { items { int: 1 } } }
        args { bool: true } val { tensor { shape: [4, 1] stride: [1, 1] dtype: "float32" device: "cpu" } }
        op_tags: "reduction" }
nodes { name: "n" op: "call_function" target: "aten.neg.default" args { node: "p" } )" + t44 + R"( op_tags: "pointwise" }
nodes { name: "f" op: "call_function" target: "prims.fma.default" args { node: "n" } args { node: "s" } args { node: "m" } )" +
                           t44 + R"( op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "loss" } items { node: "f" } } } }
)";
  const ExpSaved p = partition_saving_exp(text, "p");
  const Graph& g = p.prepared.graph;
  const PartitionResult& r = p.result;
  const Settings& s = p.settings;
  const Device device{"test", 1e12, 1e15, 1e15};
  const BandwidthEstimate bw = estimate_bandwidth(g, r, s.op_classes, device, o);
  if (stored) {
    stored->clear();
    for (const char* name : {"m", "n", "f"}) stored->push_back(bw.backward.stored[g.find(name)]);
  }
  return fused_peak_memory(g, r, s.op_classes, bw, o);
}

}  // namespace

TEST_CASE("an op tagged pointwise outside PyTorch's fusible set is fused: the softmax backward's fma") {
  // Backward start: x (64), p (64, saved), loss and tangents_1 (4 each) =
  // 136. fma joins the kernel of neg, which computes m again from p: only
  // s (16) and the gradient are stored, and the gradient takes p's memory.
  // The toy's row sum adds 4 elements, which Inductor would unroll into a
  // pointwise op (unroll_small_reductions); here it stands for a real
  // softmax's row, a reduction.
  BandwidthOptions rows;
  rows.unroll_small_reductions = false;
  std::vector<bool> stored;
  const PeakMemory fused = softmax_backward_peak(rows, &stored);
  CHECK(stored == std::vector<bool>{false, false, true});
  CHECK(fused.backward_peak_bytes == 152);
  // pointwise_tag_fuses off: fma is a kernel of its own, which loads m and
  // n (64 each) from memory, and its output has a buffer of its own.
  BandwidthOptions off = rows;
  off.pointwise_tag_fuses = false;
  const PeakMemory own_kernel = softmax_backward_peak(off, &stored);
  CHECK(stored == std::vector<bool>{true, true, true});
  CHECK(own_kernel.backward_peak_bytes > fused.backward_peak_bytes);
}

TEST_CASE("a matmul's pad into its input's row padding is a view: GPT-2's padded loss gradient") {
  // gpt2_124m pads the bfloat16 loss gradient [8, 1024, 50257] -> 50264
  // columns for its matmul; rows of 50257 are allocated 50304 wide, so
  // Inductor fills the pad's 7 columns in place.
  const auto loaded = load_graph_file(std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb", Format::Binary);
  const Settings s;
  const Partitioned p = partition_joint(loaded.graph, s);
  const Graph& g = p.prepared.graph;
  auto live_at_matmul = [&](const BandwidthOptions& o) {
    MemoryTimeline t;
    estimate_bandwidth_and_peak(g, p.result, s.op_classes, parse_device("h100"), o, PassDetail::Totals, &t);
    std::vector<std::string> names;
    for (size_t step = t.backward_from; step < t.steps.size(); ++step) {
      if (g[t.steps[step]].name != "mm_default") continue;
      for (const LiveValue& v : live_at(g, t, step)) {
        const std::string name(g[v.node].name);
        if (name == "constant_pad_nd_default" || name == "convert_element_type_225") names.push_back(name);
      }
    }
    return names;
  };
  CHECK(live_at_matmul({}) == std::vector<std::string>{"convert_element_type_225"});
  // padded_buffers off: the pad is a copy, and the fused gradient lives in it.
  BandwidthOptions off;
  off.padded_buffers = false;
  CHECK(live_at_matmul(off) == std::vector<std::string>{"constant_pad_nd_default"});
}

TEST_CASE("a saved view of a graph input holds no bytes of its own: freeing it in the backward frees nothing") {
  // wt = alias(w) is saved (aten.alias out of the recomputable set) and read
  // by the backward's grad_x; w is a primal, held for the whole step.
  const char* text = R"(
num_fwd_outputs: 1
$P(w)
$P(x)
$P(tangents_1)
nodes { name: "wt" op: "call_function" target: "aten.alias.default" args { node: "w" } $T }
nodes { name: "y" op: "call_function" target: "aten.mul.Tensor" args { node: "x" } args { node: "wt" } $T op_tags: "pointwise" }
nodes { name: "loss" op: "call_function" target: "aten.sum.default" args { node: "y" }
        val { tensor { dtype: "float32" device: "cpu" } } op_tags: "reduction" }
nodes { name: "g1" op: "call_function" target: "aten.mul.Tensor" args { node: "tangents_1" } args { node: "wt" } $T op_tags: "pointwise" }
nodes { name: "g2" op: "call_function" target: "aten.add.Tensor" args { node: "g1" } args { node: "tangents_1" } $T op_tags: "pointwise" }
nodes { name: "g3" op: "call_function" target: "aten.mul.Tensor" args { node: "g2" } args { node: "g1" } $T op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "loss" } items { none: true } items { node: "g3" } } } }
)";
  Settings s;
  s.set("recomputable_ops.remove", "aten.alias");
  const PrepareResult p = prepare(test::graph_from_text(text), s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  bool saves_view = false;
  for (NodeId id : r.extraction.fw_saved_outputs()) saves_view |= g[id].name == "wt";
  REQUIRE(saves_view);
  const PeakMemory m = simulate_peak_memory(g, r.classification, r.extraction, s.op_classes);
  CHECK(m.input_bytes == 32);  // w and x, held throughout
  // After wt's last reader (g1) the live total never drops below the inputs,
  // the loss and the tangent: g3 runs with w, x, loss, tangents_1, g2 and g1
  // live (32 + 4 + 16 + 16 + 16). Freeing wt's 16 bytes there would have
  // left 84 - 16.
  CHECK(m.backward_peak_bytes >= 84);
}

TEST_CASE("a saved half of a split fused value stores the value it splits") {
  // p = exp(x) is fused; the forward saves h1, one half of p's split (a
  // view). The peak simulation counts h1 in p's buffer, so the fusion
  // model must store p: stored as itself, the half held memory no kernel
  // allocated, and the backward freed more than it held.
  const std::string t44 = R"(val { tensor { shape: [4, 4] stride: [4, 1] dtype: "float32" device: "cpu" } })";
  const std::string t24 = R"(tensor { shape: [2, 4] stride: [4, 1] dtype: "float32" device: "cpu" })";
  const std::string text = R"(
num_fwd_outputs: 1
nodes { name: "x" op: "placeholder" target: "x" )" + t44 + R"( }
nodes { name: "tangents_1" op: "placeholder" target: "tangents_1" val { tensor { dtype: "float32" device: "cpu" } } }
nodes { name: "p" op: "call_function" target: "aten.exp.default" args { node: "x" } )" + t44 + R"( op_tags: "pointwise" }
nodes { name: "sp" op: "call_function" target: "aten.split.Tensor" args { node: "p" } args { int: 2 }
        val { tuple { items { )" + t24 + R"( } items { )" + t24 + R"( } } } }
nodes { name: "h0" op: "call_function" target: "operator.getitem" args { node: "sp" } args { int: 0 } val { )" + t24 + R"( } }
nodes { name: "h1" op: "call_function" target: "operator.getitem" args { node: "sp" } args { int: 1 } val { )" + t24 + R"( } }
nodes { name: "loss" op: "call_function" target: "aten.sum.default" args { node: "h0" }
        val { tensor { dtype: "float32" device: "cpu" } } op_tags: "reduction" }
nodes { name: "g" op: "call_function" target: "aten.mul.Tensor" args { node: "h1" } args { node: "tangents_1" }
        val { )" + t24 + R"( } op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "loss" } items { node: "g" } } } }
)";
  const ExpSaved p = partition_saving_exp(text, "h1");
  const Graph& g = p.prepared.graph;
  const Device device{"test", 1e12, 1e15, 1e15};
  const BandwidthEstimate bw = estimate_bandwidth(g, p.result, p.settings.op_classes, device);
  CHECK(bw.forward.stored[g.find("p")]);
  const PeakMemory m = fused_peak_memory(g, p.result, p.settings.op_classes, bw, {});
  // Forward: x (64), p's buffer (64, holding the saved half) and the loss
  // (4); the backward starts with them and the tangent.
  CHECK(m.forward_peak_bytes == 132);
  CHECK(m.backward_peak_bytes >= 132);
  CHECK(m.backward_peak_bytes < 1024);
}

TEST_CASE("the persistent-row join shapes the peak simulation's kernels, not the costed ones") {
  // sac_mlp's LayerNorms: with row_reduction_readers_join (the default)
  // their normalizations join the statistics' kernels for the peak; the
  // step time is costed on kernels without the join either way.
  const auto loaded = load_graph_file(std::string(PT_TEST_DIR) + "/corpus/sac_mlp.pb", Format::Binary);
  const Settings s;
  const Partitioned p = partition_joint(loaded.graph, s);
  auto estimate = [&](bool join) {
    BandwidthOptions o;
    o.row_reduction_readers_join = join;
    return estimate_bandwidth_and_peak(p.prepared.graph, p.result, s.op_classes, parse_device("h100"), o,
                                       PassDetail::Totals, nullptr);
  };
  const BandwidthAndPeak joined = estimate(true), apart = estimate(false);
  CHECK(joined.bandwidth.forward.seconds == apart.bandwidth.forward.seconds);
  CHECK(joined.bandwidth.backward.seconds == apart.bandwidth.backward.seconds);
  CHECK(joined.memory.peak_bytes != apart.memory.peak_bytes);
}
