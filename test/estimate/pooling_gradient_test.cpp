// Pooling gradients (estimate/inductor_fusible.h): the window taps each
// element gathers, and the fused kernel that computes a max-pooling
// gradient with its indices inlined, bound by its taps.
#include <doctest/doctest.h>

#include "support/relative.h"

#include <string>

#include "estimate/bandwidth_model.h"
#include "estimate/inductor_fusible.h"
#include "report/graph_builder.h"

namespace {

using pt::test::GraphBuilder;

std::string ints(std::initializer_list<int> values) {
  std::string text = "args { list {";
  for (int v : values) text += " items { int: " + std::to_string(v) + " }";
  return text + " } } ";
}

// A ResNet stem's max-pooling gradient in miniature: x [2, 4, 8, 8] bf16,
// 3x3 windows of stride 2 into [2, 4, 4, 4], the saved int8 offsets turned
// into indices in the backward.
pt::Graph max_pool_backward() {
  GraphBuilder b;
  b.input("x", {2, 4, 8, 8}, "bfloat16");
  b.input("go", {2, 4, 4, 4}, "bfloat16");
  b.input("offsets", {2, 4, 4, 4}, "int8");
  b.op("idx", "prims._low_memory_max_pool_offsets_to_indices.default", {"offsets"}, {2, 4, 4, 4}, "int64", {},
       ints({3, 3}) + ints({8, 8}) + ints({2, 2}) + ints({1, 1}) + ints({1, 1}));
  b.op("gx", "aten.max_pool2d_with_indices_backward.default", {"go", "x"}, {2, 4, 8, 8}, "bfloat16", {},
       ints({3, 3}) + ints({2, 2}) + ints({1, 1}) + ints({1, 1}) + "args { bool: false } args { node: \"idx\" }");
  return b.build({"gx"});
}

}  // namespace

TEST_CASE("a pooling gradient gathers ceil(kernel / stride) windows per axis") {
  const pt::Graph g = max_pool_backward();
  CHECK(pt::is_pooling_gradient(g, g.find("gx")));
  CHECK(pt::pooling_gradient_taps(g, g.find("gx")) == 4);  // 3x3, stride 2
  CHECK(pt::pooling_gradient_taps(g, g.find("idx")) == 0);
  GraphBuilder b;
  b.input("x", {2, 4, 8, 8}, "bfloat16");
  b.input("go", {2, 4, 8, 8}, "bfloat16");
  b.input("go2", {2, 4, 4, 4}, "bfloat16");
  const std::string tail = ints({1, 1}) + "args { bool: false } args { bool: false } args { none: true }";
  // PoolFormer's token mixer: 3x3 windows of stride 1.
  b.op("s1", "aten.avg_pool2d_backward.default", {"go", "x"}, {2, 4, 8, 8}, "bfloat16", {},
       ints({3, 3}) + ints({1, 1}) + tail);
  // DenseNet's transition: 2x2 of stride 2; an empty stride is the kernel's.
  b.op("s2", "aten.avg_pool2d_backward.default", {"go2", "x"}, {2, 4, 8, 8}, "bfloat16", {},
       ints({2, 2}) + ints({2, 2}) + tail);
  b.op("s_default", "aten.avg_pool2d_backward.default", {"go2", "x"}, {2, 4, 8, 8}, "bfloat16", {},
       ints({2, 2}) + "args { list { } } " + tail);
  // A window no model has (from a malformed graph): capped, not overflowed.
  const std::string huge = "args { list { items { int: 9223372036854775807 } } } ";
  b.op("s_huge", "aten.avg_pool2d_backward.default", {"go", "x"}, {2, 4, 8, 8}, "bfloat16", {},
       huge + ints({1, 1}) + tail);
  const pt::Graph a = b.build({"s1", "s2", "s_default", "s_huge"});
  CHECK(pt::pooling_gradient_taps(a, a.find("s_huge")) == (uint64_t{1} << 40));
  CHECK(pt::pooling_gradient_taps(a, a.find("s1")) == 9);
  CHECK(pt::pooling_gradient_taps(a, a.find("s2")) == 1);
  CHECK(pt::pooling_gradient_taps(a, a.find("s_default")) == 1);
}

TEST_CASE("a max-pooling gradient fuses with its indices, which it never stores, and takes its taps' time") {
  const pt::Graph g = max_pool_backward();
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Subgraph pass = pt::test::whole_pass(g);
  pt::Device d{"test", 1e12, 1e15, 1e15};
  d.pool_tap_seconds = 1e-9;
  const pt::PassEstimate fused = pt::estimate_pass(g, pass, g.outputs, ops, d);
  CHECK(fused.kernel_count == 1);
  CHECK(fused.bytes_stored == 2 * 4 * 8 * 8 * 2);  // the gradient only
  // 512 elements, 4 taps each: far above its bytes at 1e12 B/s.
  CHECK(fused.seconds == pt::test::relative(512 * 4 * 1e-9));
  pt::BandwidthOptions off;
  off.pooling_gradients_fuse = false;
  const pt::PassEstimate apart = pt::estimate_pass(g, pass, g.outputs, ops, d, off);
  CHECK(apart.kernel_count == 2);
  CHECK(apart.bytes_stored == 2 * 4 * 8 * 8 * 2 + 2 * 4 * 4 * 4 * 8);  // and the int64 indices
  CHECK(apart.seconds < fused.seconds);
}
