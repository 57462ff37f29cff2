// Reductions across rows (estimate/column_reduction.h) and the time of the
// kernels that hold one of short rows.
#include <doctest/doctest.h>

#include "support/relative.h"

#include <string>

#include "estimate/bandwidth_model.h"
#include "estimate/column_reduction.h"
#include "report/graph_builder.h"

namespace {

using pt::test::GraphBuilder;

std::string dims(std::initializer_list<int> ds) {
  std::string text = "args { list {";
  for (int d : ds) text += " items { int: " + std::to_string(d) + " }";
  return text + " } }";
}

}  // namespace

TEST_CASE("a per-channel sum of a channels-last activation keeps rows of its channels") {
  // [2, 8, 3, 3] bfloat16, channels-last: channels contiguous, 16-byte rows.
  GraphBuilder b;
  b.strided_input("x", {2, 8, 3, 3}, {72, 1, 24, 8}, "bfloat16");
  b.op("per_channel", "aten.sum.dim_IntList", {"x"}, {8}, "bfloat16", {"reduction"}, dims({0, 2, 3}));
  b.op("per_pixel", "aten.sum.dim_IntList", {"x"}, {2, 3, 3}, "bfloat16", {"reduction"}, dims({1}));
  b.op("upcast", "prims.convert_element_type.default", {"x"}, {2, 8, 3, 3}, "float32", {},
       "args { dtype: \"float32\" }", {72, 1, 24, 8});
  b.op("upcast_sum", "aten.sum.dim_IntList", {"upcast"}, {8}, "float32", {"reduction"}, dims({0, 2, 3}));
  const pt::Graph g = b.build({"per_channel", "per_pixel", "upcast_sum"});
  CHECK(pt::column_reduction_row_bytes(g, g.find("per_channel"), {}) == 8 * 2);
  CHECK(pt::column_reduction_row_bytes(g, g.find("per_pixel"), {}) == 0);  // along the innermost axis
  // The kernel reads the bfloat16 buffer; its float32 upcast is computed inside.
  CHECK(pt::column_reduction_row_bytes(g, g.find("upcast_sum"), {}) == 8 * 2);
  CHECK(pt::column_reduction_row_bytes(g, g.find("upcast"), {}) == 0);  // no reduction
}

TEST_CASE("without strides an input is contiguous: a sum over its first axis keeps whole rows") {
  GraphBuilder b;
  b.input("x", {4, 3, 6});
  b.op("columns", "aten.sum.dim_IntList", {"x"}, {3, 6}, "float32", {"reduction"}, dims({0}));
  b.op("all", "aten.sum.dim_IntList", {"x"}, {1}, "float32", {"reduction"}, dims({0, 1, 2}));
  b.op("rows", "aten.sum.dim_IntList", {"x"}, {4, 3}, "float32", {"reduction"}, dims({-1}));
  const pt::Graph g = b.build({"columns", "all", "rows"});
  CHECK(pt::column_reduction_row_bytes(g, g.find("columns"), {}) == 3 * 6 * 4);
  CHECK(pt::column_reduction_row_bytes(g, g.find("all"), {}) == 0);
  CHECK(pt::column_reduction_row_bytes(g, g.find("rows"), {}) == 0);
}

TEST_CASE("a kernel holding a reduction across rows moves its bytes as if each row were longer") {
  GraphBuilder b;
  b.strided_input("x", {2, 8, 3, 3}, {72, 1, 24, 8}, "bfloat16");
  b.op("s", "aten.sum.dim_IntList", {"x"}, {8}, "bfloat16", {"reduction"}, dims({0, 2, 3}));
  const pt::Graph g = b.build({"s"});
  pt::Device d{"test", 1e9, 1e15, 1e15};
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Subgraph pass = pt::test::whole_pass(g);
  const pt::PassEstimate plain = pt::estimate_pass(g, pass, g.outputs, ops, d);
  CHECK(plain.seconds == pt::test::relative((288 + 16) / 1e9));
  // 16-byte rows, 48 bytes more each: a quarter of the bandwidth.
  d.column_reduction = {48};
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds == pt::test::relative(4 * plain.seconds));
  pt::BandwidthOptions peaks;
  peaks.apply_device_efficiency = false;
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d, peaks).seconds == pt::test::relative(plain.seconds));
}

TEST_CASE("a reduction across rows the backward recomputes reads cold and costs more") {
  // BatchNorm's statistics recomputed from a saved channels-last activation
  // (Device::column_reduction.recomputed_seconds); a sum along rows
  // recomputed the same way costs what it costs in the forward.
  GraphBuilder b;
  b.strided_input("x", {2, 8, 3, 3}, {72, 1, 24, 8}, "bfloat16");
  b.op("stats", "aten.sum.dim_IntList", {"x"}, {8}, "bfloat16", {"reduction"}, dims({0, 2, 3}));
  b.op("per_pixel", "aten.sum.dim_IntList", {"x"}, {2, 3, 3}, "bfloat16", {"reduction"}, dims({1}));
  const pt::Graph g = b.build({"stats", "per_pixel"});
  pt::Device d{"test", 1e9, 1e15, 1e15};
  d.column_reduction = {0, 3e-6};
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Subgraph pass = pt::test::whole_pass(g);
  const pt::BandwidthOptions on;
  const double forward = pt::estimate_pass(g, pass, g.outputs, ops, d, on).seconds;
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d, on, {g.find("stats")}).seconds ==
        pt::test::relative(forward + 3e-6));
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d, on, {g.find("per_pixel")}).seconds ==
        pt::test::relative(forward));
  pt::BandwidthOptions off;
  off.recomputed_reductions_read_cold = false;
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d, off, {g.find("stats")}).seconds == pt::test::relative(forward));
  pt::BandwidthOptions peaks;
  peaks.apply_device_efficiency = false;
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d, peaks, {g.find("stats")}).seconds ==
        pt::test::relative(pt::estimate_pass(g, pass, g.outputs, ops, d, peaks).seconds));
}

TEST_CASE("Inductor splits reductions to few outputs over many elements in two") {
  // 132 multiprocessors: across rows, fewer than 8448 outputs of more than
  // 128 elements each; along rows, fewer than 264 of more than 8192.
  GraphBuilder b;
  b.strided_input("act", {64, 512, 7, 7}, {25088, 1, 3584, 512}, "bfloat16");  // channels-last
  b.op("stats", "aten.sum.dim_IntList", {"act"}, {512}, "bfloat16", {"reduction"}, dims({0, 2, 3}));
  b.input("tokens", {8192, 768});
  b.op("bias_grad", "aten.sum.dim_IntList", {"tokens"}, {768}, "float32", {"reduction"}, dims({0}));
  b.op("row_sums", "aten.sum.dim_IntList", {"tokens"}, {8192}, "float32", {"reduction"}, dims({1}));
  b.op("loss_sum", "aten.sum.dim_IntList", {"tokens"}, {1}, "float32", {"reduction"}, dims({0, 1}));
  b.input("short", {100, 768});
  b.op("short_columns", "aten.sum.dim_IntList", {"short"}, {768}, "float32", {"reduction"}, dims({0}));
  b.input("wide", {16, 9000});
  b.op("many_outputs", "aten.sum.dim_IntList", {"wide"}, {9000}, "float32", {"reduction"}, dims({0}));
  b.input("few_rows", {8192, 16});
  b.op("few_long_rows", "aten.sum.dim_IntList", {"few_rows"}, {16}, "float32", {"reduction"}, dims({1}));
  const pt::Graph g = b.build({"stats", "bias_grad", "row_sums", "loss_sum", "short_columns", "many_outputs",
                               "few_long_rows"});
  const auto split = [&](const char* name, int sms = 132) { return pt::is_split_reduction(g, g.find(name), sms, {}); };
  CHECK(split("stats"));       // 512 outputs of 3136
  CHECK(split("bias_grad"));   // 768 outputs of 8192
  CHECK(split("loss_sum"));    // one output of 6.3M
  CHECK_FALSE(split("row_sums"));       // 8192 outputs of 768 along rows
  CHECK_FALSE(split("short_columns"));  // each output sums 100
  CHECK_FALSE(split("many_outputs"));   // 9000 outputs
  CHECK_FALSE(split("few_long_rows"));  // 8192 outputs along rows of 16
  CHECK_FALSE(split("stats", 0));       // the device's SMs unknown
  CHECK_FALSE(split("act"));            // no reduction
}

TEST_CASE("a kernel holding a split reduction costs two kernel latencies more") {
  GraphBuilder b;
  b.input("tokens", {8192, 768});
  b.op("bias_grad", "aten.sum.dim_IntList", {"tokens"}, {768}, "float32", {"reduction"}, dims({0}));
  const pt::Graph g = b.build({"bias_grad"});
  pt::Device d{"test", 1e12, 1e15, 1e15};
  d.kernel_latency_seconds = 2e-6;
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Subgraph pass = pt::test::whole_pass(g);
  const double one_kernel = pt::estimate_pass(g, pass, g.outputs, ops, d).seconds;
  d.multiprocessors = 132;
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d).seconds == pt::test::relative(one_kernel + 4e-6));
  pt::BandwidthOptions off;
  off.split_reductions = false;
  CHECK(pt::estimate_pass(g, pass, g.outputs, ops, d, off).seconds == pt::test::relative(one_kernel));
}

TEST_CASE("a sum across rows of a value a matmul also reads is a kernel of its own that loads the value") {
  // A GELU-backward-like product g = a * b, read by a matmul and by its
  // column sum (a bias gradient): Inductor stores g from a pointwise
  // kernel and sums it in another (the loops differ), reading it again.
  GraphBuilder b;
  b.input("a", {64, 32});
  b.input("c", {64, 32});
  b.input("w", {32, 16});
  b.op("g", "aten.mul.Tensor", {"a", "c"}, {64, 32});
  b.op("mm", "aten.mm.default", {"g", "w"}, {64, 16});
  b.op("bias_grad", "aten.sum.dim_IntList", {"g"}, {32}, "float32", {"reduction"}, dims({0}));
  const pt::Graph g = b.build({"mm", "bias_grad"});
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Device d{"test", 1e12, 1e15, 1e15};
  const pt::Subgraph pass = pt::test::whole_pass(g);
  const pt::PassEstimate apart = pt::estimate_pass(g, pass, g.outputs, ops, d);
  REQUIRE(apart.kernels.size() == 3);  // mul, matmul, sum
  CHECK(apart.bytes_loaded == (8192 + 8192) + (8192 + 2048) + 8192);
  pt::BandwidthOptions off;
  off.column_reductions_start_kernels = false;
  const pt::PassEstimate joined = pt::estimate_pass(g, pass, g.outputs, ops, d, off);
  CHECK(joined.kernels.size() == 2);  // mul and sum together, matmul
  CHECK(joined.bytes_loaded == (8192 + 8192) + (8192 + 2048));
}

TEST_CASE("a sum across rows of a value nothing else reads still computes it in its own kernel") {
  // ResNet's BatchNorm backward: the ReLU gradient is inlined into the
  // per-channel sums (Inductor realizes nothing for them).
  GraphBuilder b;
  b.input("a", {64, 32});
  b.input("c", {64, 32});
  b.op("g", "aten.mul.Tensor", {"a", "c"}, {64, 32});
  b.op("s", "aten.sum.dim_IntList", {"g"}, {32}, "float32", {"reduction"}, dims({0}));
  const pt::Graph g = b.build({"s"});
  const pt::PassEstimate p = pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs,
                                               pt::OpClasses::pytorch_defaults(), pt::Device{"test", 1e12, 1e15, 1e15});
  CHECK(p.kernels.size() == 1);
  CHECK(p.bytes_loaded == 8192 + 8192);
}

TEST_CASE("two sums across rows of the same shape run as one kernel, apart from the pointwise kernel") {
  // A LayerNorm's weight and bias gradients: sum(dy * xhat) and sum(dy),
  // dy stored for a matmul. Inductor fuses the two sums (same loops), not
  // the sums with the kernel that computes dy.
  GraphBuilder b;
  b.input("a", {64, 32});
  b.input("c", {64, 32});
  b.input("xhat", {64, 32});
  b.input("w", {32, 16});
  b.op("dy", "aten.mul.Tensor", {"a", "c"}, {64, 32});
  b.op("mm", "aten.mm.default", {"dy", "w"}, {64, 16});
  b.op("bias_grad", "aten.sum.dim_IntList", {"dy"}, {32}, "float32", {"reduction"}, dims({0}));
  b.op("prod", "aten.mul.Tensor", {"dy", "xhat"}, {64, 32});
  b.op("weight_grad", "aten.sum.dim_IntList", {"prod"}, {32}, "float32", {"reduction"}, dims({0}));
  const pt::Graph g = b.build({"mm", "bias_grad", "weight_grad"});
  const pt::PassEstimate p = pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs,
                                               pt::OpClasses::pytorch_defaults(), pt::Device{"test", 1e12, 1e15, 1e15});
  CHECK(p.kernel_count == 3);  // dy (and prod), matmul, both sums
}

TEST_CASE("Inductor's mix-order reduction joins a sum across rows and one along rows of a large input") {
  CHECK(pt::mix_order_reducible(8192, 1024));   // Llama's RMSNorm backward
  CHECK(pt::mix_order_reducible(200704, 96));   // ConvNeXt-T's first stage
  CHECK_FALSE(pt::mix_order_reducible(6304, 768));  // ViT-B/16: under 5 Mi elements
  CHECK_FALSE(pt::mix_order_reducible(3136, 2048));  // too few rows
  CHECK_FALSE(pt::mix_order_reducible(40000, 30000));  // too many columns
  // A norm's backward: the statistics' sum along rows and the weight's
  // gradient across them, both of x * dy.
  const auto norm_backward = [](int64_t rows) {
    GraphBuilder b;
    b.input("x", {rows, 1024}, "bfloat16");
    b.input("dy", {rows, 1024}, "bfloat16");
    b.op("p", "aten.mul.Tensor", {"x", "dy"}, {rows, 1024}, "bfloat16");
    b.op("row_sum", "aten.sum.dim_IntList", {"p"}, {rows, 1}, "float32", {"reduction"}, dims({1}));
    b.op("weight_grad", "aten.sum.dim_IntList", {"p"}, {1024}, "float32", {"reduction"}, dims({0}));
    return b.build({"row_sum", "weight_grad"});
  };
  const auto kernels = [](const pt::Graph& g, bool start_kernels) {
    pt::BandwidthOptions o;
    o.column_reductions_start_kernels = start_kernels;
    return pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, pt::OpClasses::pytorch_defaults(),
                             pt::Device{"test", 1e12, 1e15, 1e15}, o)
        .kernel_count;
  };
  const pt::Graph large = norm_backward(8192), small = norm_backward(4096);
  CHECK(kernels(large, true) == 1);  // one mix-order kernel
  CHECK(kernels(small, true) == 2);  // 4 Mi elements: two kernels, each reading x and dy
  CHECK(kernels(small, {}) == 1);
}

TEST_CASE("a realized value that a sum across rows computes through is stored and loaded there") {
  // v = a + b + c + d + e reads five buffers and has two readers, so
  // Inductor realizes it; the sum across rows of v * 3 runs in a kernel of
  // its own and loads v instead of adding the five inputs again.
  GraphBuilder b;
  for (const char* x : {"a", "b", "c", "d", "e"}) b.input(x, {64, 32});
  b.input("w", {32, 16});
  b.op("ab", "aten.add.Tensor", {"a", "b"}, {64, 32});
  b.op("abc", "aten.add.Tensor", {"ab", "c"}, {64, 32});
  b.op("abcd", "aten.add.Tensor", {"abc", "d"}, {64, 32});
  b.op("v", "aten.add.Tensor", {"abcd", "e"}, {64, 32});
  b.op("twice", "aten.mul.Tensor", {"v", "v"}, {64, 32});
  b.op("mm", "aten.mm.default", {"twice", "w"}, {64, 16});
  b.op("thrice", "aten.add.Tensor", {"v", "twice"}, {64, 32});
  b.op("s", "aten.sum.dim_IntList", {"thrice"}, {32}, "float32", {"reduction"}, dims({0}));
  const pt::Graph g = b.build({"mm", "s"});
  const pt::PassEstimate p = pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs,
                                               pt::OpClasses::pytorch_defaults(), pt::Device{"test", 1e12, 1e15, 1e15});
  CHECK(p.stored[g.find("v")]);
  const auto sum_kernel = std::find_if(p.kernels.begin(), p.kernels.end(),
                                       [&](const pt::KernelEstimate& k) { return k.first == g.find("s"); });
  REQUIRE(sum_kernel != p.kernels.end());
  CHECK(sum_kernel->bytes_loaded == 8192 + 8192);  // v, and twice (stored for the matmul)
}

TEST_CASE("sums across rows that share one buffer but read others of their own stay apart") {
  // Two blocks' layer-scale gradients: each sums the stage's gradient g
  // (the second with its block's own addition) times the block's own
  // activation. Inductor keeps them in kernels of their own (ConvNeXt's
  // generated code); one kernel of both would run at the later block.
  GraphBuilder b;
  b.input("g", {64, 32});
  b.input("c", {64, 32});
  b.input("a1", {64, 32});
  b.input("a2", {64, 32});
  b.op("p1", "aten.mul.Tensor", {"g", "a1"}, {64, 32});
  b.op("s1", "aten.sum.dim_IntList", {"p1"}, {32}, "float32", {"reduction"}, dims({0}));
  b.op("gc", "aten.add.Tensor", {"g", "c"}, {64, 32});
  b.op("p2", "aten.mul.Tensor", {"gc", "a2"}, {64, 32});
  b.op("s2", "aten.sum.dim_IntList", {"p2"}, {32}, "float32", {"reduction"}, dims({0}));
  const pt::Graph g = b.build({"s1", "s2"});
  const pt::PassEstimate p = pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs,
                                               pt::OpClasses::pytorch_defaults(), pt::Device{"test", 1e12, 1e15, 1e15});
  CHECK(p.kernel_count == 2);
}
