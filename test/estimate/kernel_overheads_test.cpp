// What a kernel costs beyond its bytes and FLOPs (Device::kernel_latency_seconds),
// and which ops Inductor fuses though PyTorch's fusible set lacks them
// (estimate/inductor_fusible.h: copies into inputs, select/slice scatters).
#include <doctest/doctest.h>

#include "support/relative.h"

#include "estimate/bandwidth_model.h"
#include "estimate/inductor_fusible.h"
#include "report/graph_builder.h"

namespace {

using pt::BandwidthOptions;
using pt::Graph;
using pt::PassEstimate;
using pt::test::GraphBuilder;

PassEstimate estimate_all(const Graph& g, const pt::Device& d, const BandwidthOptions& o = {}) {
  return pt::estimate_pass(g, pt::test::whole_pass(g), g.outputs, pt::OpClasses::pytorch_defaults(), d, o);
}

// A BatchNorm-like running statistic: the new value is computed from the
// buffer and a batch statistic, then copied into the buffer (a graph input).
Graph running_statistic() {
  GraphBuilder b;
  b.input("running", {64});
  b.input("batch", {64});
  b.op("scaled", "aten.mul.Tensor", {"running", "batch"}, {64});
  b.op("updated", "aten.add.Tensor", {"scaled", "batch"}, {64});
  b.op("copy", "aten.copy_.default", {"running", "updated"}, {64}, "float32", {}, "mutable: true");
  return b.build({"copy"});
}

// The backward of q, k, v = qkv[0], qkv[1], qkv[2] (torch's packed
// attention projection): each gradient scattered into zeros of the packed
// shape, the three summed.
pt::Graph packed_gradient() {
  GraphBuilder b;
  b.input("dq", {16, 8});
  b.input("dk", {16, 8});
  b.input("dv", {16, 8});
  b.op("zeros", "aten.full.default", {}, {3, 16, 8}, "float32", {}, "args { list { items { int: 3 } items { int: 16 } items { int: 8 } } } args { int: 0 }");
  b.op("sq", "aten.select_scatter.default", {"zeros", "dq"}, {3, 16, 8}, "float32", {}, "args { int: 0 } args { int: 0 }");
  b.op("sk", "aten.select_scatter.default", {"zeros", "dk"}, {3, 16, 8}, "float32", {}, "args { int: 0 } args { int: 1 }");
  b.op("sv", "aten.select_scatter.default", {"zeros", "dv"}, {3, 16, 8}, "float32", {}, "args { int: 0 } args { int: 2 }");
  b.op("a1", "aten.add.Tensor", {"sq", "sk"}, {3, 16, 8});
  b.op("a2", "aten.add.Tensor", {"a1", "sv"}, {3, 16, 8});
  return b.build({"a2"});
}

}  // namespace

TEST_CASE("every kernel costs the device's kernel latency, unless apply_device_efficiency is off") {
  GraphBuilder b;
  b.input("x", {1000});
  b.op("r", "aten.relu.default", {"x"}, {1000});
  b.op("s", "aten.sum.default", {"r"}, {}, "float32", {"reduction"});
  b.op("m", "aten.mul.Tensor", {"x", "s"}, {1000});
  const Graph g = b.build({"m"});
  pt::Device d{"test", 1e12, 1e15, 1e15};
  const PassEstimate bytes_only = estimate_all(g, d);
  REQUIRE(bytes_only.kernel_count == 2);  // the reduction ends its kernel
  d.kernel_latency_seconds = 3e-6;
  CHECK(estimate_all(g, d).seconds == pt::test::relative(bytes_only.seconds + 2 * 3e-6));
  BandwidthOptions peaks;
  peaks.apply_device_efficiency = false;
  CHECK(estimate_all(g, d, peaks).seconds == pt::test::relative(bytes_only.seconds));
}

TEST_CASE("a copy_ into a graph input is stored by the kernel that computes the copied value") {
  const Graph g = running_statistic();
  const pt::Device d{"test", 1e12, 1e15, 1e15};
  CHECK(estimate_all(g, d).kernel_count == 1);
  BandwidthOptions own_kernel;
  own_kernel.fuse_input_copies = false;
  CHECK(estimate_all(g, d, own_kernel).kernel_count == 2);
}

TEST_CASE("a cuBLAS matmul costs the matmul latency, and a float32 one runs at the TF32 efficiency") {
  GraphBuilder b;
  b.input("a", {8, 16}, "bfloat16");
  b.input("w", {16, 4}, "bfloat16");
  b.input("a32", {8, 16});
  b.input("w32", {16, 4});
  b.op("mm", "aten.mm.default", {"a", "w"}, {8, 4}, "bfloat16");
  b.op("mm32", "aten.mm.default", {"a32", "w32"}, {8, 4});
  const Graph g = b.build({"mm", "mm32"});
  // FLOP-bound: 1024 FLOPs each, at 1e3 FLOP/s (bf16) and 5e2 (float32).
  pt::Device d{"test", 1e18, 1e3, 5e2, 1, 0.5};
  d.fp32_matmul_efficiency = 0.25;
  d.kernel_latency_seconds = 1;
  d.matmul_latency_seconds = 3;
  const PassEstimate p = estimate_all(g, d);
  REQUIRE(p.kernels.size() == 2);
  CHECK(p.kernels[0].seconds == pt::test::relative(1024 / (1e3 * 0.5) + 3));
  CHECK(p.kernels[1].seconds == pt::test::relative(1024 / (5e2 * 0.25) + 3));
  d.fp32_matmul_efficiency = 0;  // not measured: the bf16 efficiency
  CHECK(estimate_all(g, d).kernels[1].seconds == pt::test::relative(1024 / (5e2 * 0.5) + 3));
}

TEST_CASE("select_scatter and slice_scatter are fused like pointwise ops") {
  const pt::Graph g = packed_gradient();
  CHECK(pt::is_slice_scatter(g, g.find("sq")));
  CHECK_FALSE(pt::is_slice_scatter(g, g.find("a1")));
  const auto ops = pt::OpClasses::pytorch_defaults();
  const pt::Device d{"test", 1e12, 1e15, 1e15};
  const pt::Subgraph pass = pt::test::whole_pass(g);
  // One kernel: the three gradients in (512 bytes each), the sum out; the
  // zeros are a constant of the kernel.
  const pt::PassEstimate fused = pt::estimate_pass(g, pass, g.outputs, ops, d);
  CHECK(fused.kernel_count == 1);
  CHECK(fused.bytes_loaded == 3 * 512);
  CHECK(fused.bytes_stored == 3 * 512);
  pt::BandwidthOptions off;
  off.slice_scatters_fuse = false;
  const pt::PassEstimate apart = pt::estimate_pass(g, pass, g.outputs, ops, d, off);
  CHECK(apart.kernel_count == 5);  // the zeros, three scatters, the sum
  CHECK(apart.bytes_loaded > 3 * fused.bytes_loaded);
}
