// Ops Inductor fuses though PyTorch's fusible set lacks them
// (estimate/inductor_fusible.h).
#include <doctest/doctest.h>

#include "estimate/bandwidth_model.h"
#include "estimate/inductor_fusible.h"
#include "report/graph_builder.h"

namespace {

using pt::test::GraphBuilder;

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
