// FLOP counts of hand-built nodes; every expected number is worked out by hand
// from torch/utils/flop_counter.py's formulas in the comment next to it.
#include <doctest/doctest.h>

#include <string>

#include "analysis/runtime_estimate.h"
#include "graph/errors.h"
#include "support/op_graph.h"

using pt::test::Input;
using pt::test::node_args;
using pt::test::one_op_graph;
using pt::test::tensor_val;
using pt::test::tuple_val;

namespace {

uint64_t flops_of(const pt::Graph& g) { return pt::count_flops(g, g.find("op")); }

const std::string kConvTail =  // stride, padding, dilation, transposed, output_padding, groups
    R"(args { list { items { int: 1 } items { int: 1 } } } args { list { items { int: 0 } items { int: 0 } } }
       args { list { items { int: 1 } items { int: 1 } } } args { bool: %T } args { list { items { int: 0 } items { int: 0 } } }
       args { int: %G })";

std::string conv_tail(bool transposed, int groups) {
  std::string s = kConvTail;
  s.replace(s.find("%T"), 2, transposed ? "true" : "false");
  s.replace(s.find("%G"), 2, std::to_string(groups));
  return s;
}

}  // namespace

TEST_CASE("matmul family: 2*M*N*K and 2*B*M*N*K") {
  // mm [64,32] @ [32,16]: 2*64*16*32 = 65536.
  auto g = one_op_graph({{"a", {64, 32}}, {"b", {32, 16}}}, "aten.mm.default", node_args({"a", "b"}), tensor_val({64, 16}));
  CHECK(flops_of(g) == 65536);
  CHECK(pt::estimate_runtime(g, g.find("op")) == 65536.0);
  // addmm ignores its bias (arg 0).
  g = one_op_graph({{"c", {16}}, {"a", {64, 32}}, {"b", {32, 16}}}, "aten.addmm.default", node_args({"c", "a", "b"}),
                   tensor_val({64, 16}));
  CHECK(flops_of(g) == 65536);
  // mat2 written as a keyword is found by its schema name.
  g = one_op_graph({{"a", {64, 32}}, {"b", {32, 16}}}, "aten.mm.default",
                   R"(args { node: "a" } kwargs { key: "mat2" value { node: "b" } })", tensor_val({64, 16}));
  CHECK(flops_of(g) == 65536);
  // bmm [8,64,32] @ [8,32,16]: 2*8*64*16*32 = 524288; baddbmm reads args 1, 2.
  g = one_op_graph({{"a", {8, 64, 32}}, {"b", {8, 32, 16}}}, "aten.bmm.default", node_args({"a", "b"}),
                   tensor_val({8, 64, 16}));
  CHECK(flops_of(g) == 524288);
  g = one_op_graph({{"c", {8, 64, 16}}, {"a", {8, 64, 32}}, {"b", {8, 32, 16}}}, "aten.baddbmm.default",
                   node_args({"c", "a", "b"}), tensor_val({8, 64, 16}));
  CHECK(flops_of(g) == 524288);
  // _scaled_mm counts its two matrices only.
  g = one_op_graph({{"a", {64, 32}}, {"b", {32, 16}}, {"sa", {}}, {"sb", {}}}, "aten._scaled_mm.default",
                   node_args({"a", "b", "sa", "sb"}), tensor_val({64, 16}));
  CHECK(flops_of(g) == 65536);
}

TEST_CASE("convolution: output spatial size, input spatial size when transposed") {
  // Grouped (groups 2): x [2,6,10,10], w [4,3,3,3], out [2,4,8,8]:
  // 2 * batch 2 * c_out 4 * (c_in/groups) 3 * kernel 9 * out spatial 64 = 27648.
  const std::vector<Input> in = {{"x", {2, 6, 10, 10}}, {"w", {4, 3, 3, 3}}};
  auto g = one_op_graph(in, "aten.convolution.default", node_args({"x", "w"}) + "args { none: true } " + conv_tail(false, 2),
                        tensor_val({2, 4, 8, 8}));
  CHECK(flops_of(g) == 27648);
  // _convolution: same first nine args, then benchmark, deterministic, cudnn_enabled, allow_tf32.
  g = one_op_graph(in, "aten._convolution.default",
                   node_args({"x", "w"}) + "args { none: true } " + conv_tail(false, 2) +
                       " args { bool: true } args { bool: false } args { bool: true } args { bool: true }",
                   tensor_val({2, 4, 8, 8}));
  CHECK(flops_of(g) == 27648);
  // Transposed (stride 2): x [2,4,5,5], w [4,3,3,3], out [2,3,11,11]:
  // 2 * 2 * 4 * 3 * 9 * input spatial 25 = 10800.
  g = one_op_graph({{"x", {2, 4, 5, 5}}, {"w", {4, 3, 3, 3}}}, "aten.convolution.default",
                   node_args({"x", "w"}) + "args { none: true } " + conv_tail(true, 1), tensor_val({2, 3, 11, 11}));
  CHECK(flops_of(g) == 10800);
}

TEST_CASE("cudnn_convolution's arg 6 is `benchmark`, read as `transposed` like PyTorch does") {
  // (self, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32)
  const std::vector<Input> in = {{"x", {2, 6, 10, 10}}, {"w", {4, 3, 3, 3}}};
  const std::string lists = R"(args { list { items { int: 0 } items { int: 0 } } } args { list { items { int: 1 } items { int: 1 } } }
      args { list { items { int: 1 } items { int: 1 } } } args { int: 2 } )";
  auto g = one_op_graph(in, "aten.cudnn_convolution.default",
                        node_args({"x", "w"}) + lists + "args { bool: false } args { bool: false } args { bool: true }",
                        tensor_val({2, 4, 8, 8}));
  CHECK(flops_of(g) == 27648);
  // benchmark=true: input spatial 100 instead of 64 -> 2*2*4*3*9*100 = 43200.
  g = one_op_graph(in, "aten.cudnn_convolution.default",
                   node_args({"x", "w"}) + lists + "args { bool: true } args { bool: false } args { bool: true }",
                   tensor_val({2, 4, 8, 8}));
  CHECK(flops_of(g) == 43200);
  // _slow_conv2d_forward(self, weight, kernel_size, bias, stride, padding): not transposed.
  g = one_op_graph({{"x", {2, 3, 10, 10}}, {"w", {4, 3, 3, 3}}}, "aten._slow_conv2d_forward.default",
                   node_args({"x", "w"}) +
                       R"(args { list { items { int: 3 } items { int: 3 } } } args { none: true }
                          args { list { items { int: 1 } items { int: 1 } } } args { list { items { int: 0 } items { int: 0 } } })",
                   tensor_val({2, 4, 8, 8}));
  CHECK(flops_of(g) == 27648);  // 2*2*4*3*9*64
}

namespace {

pt::Graph conv_backward(const std::vector<Input>& in, bool transposed, int groups, const std::string& mask,
                        const std::string& val) {
  return one_op_graph(in, "aten.convolution_backward.default",
                      node_args({"go", "x", "w"}) + "args { list { items { int: 0 } } } " + conv_tail(transposed, groups) +
                          " args { list { " + mask + " } }",
                      val);
}

}  // namespace

TEST_CASE("convolution_backward sums the terms output_mask asks for") {
  const std::vector<Input> in = {{"go", {2, 4, 8, 8}}, {"x", {2, 6, 10, 10}}, {"w", {4, 3, 3, 3}}};
  const std::string outs = tuple_val({{2, 6, 10, 10}, {4, 3, 3, 3}, {4}});
  const std::string t = "items { bool: true } ", f = "items { bool: false } ";
  // grad_input = conv(go, w, gi, transposed=True): 2 * 2 * 4 * 3 * 9 * grad_out spatial 64 = 27648.
  // grad_weight = conv(t(x)=[6,2,10,10], t(go)=[4,2,8,8], t(gw)=[3,4,3,3]):
  //   2 * batch 6 * c_out 4 * c_in 2 * spatial 9 * filter 64 = 55296 (groups not divided out).
  CHECK(flops_of(conv_backward(in, false, 2, t + t + t, outs)) == 27648 + 55296);
  CHECK(flops_of(conv_backward(in, false, 2, f + t + f, tuple_val({{}, {4, 3, 3, 3}, {}}))) == 55296);
  CHECK(flops_of(conv_backward(in, false, 2, t + f + t, outs)) == 27648);
  auto bias_only = conv_backward(in, false, 2, f + f + t, tuple_val({{}, {}, {4}}));
  CHECK(flops_of(bias_only) == 0);
  CHECK(pt::estimate_runtime(bias_only, bias_only.find("op")) == 1.0);

  // Transposed forward x [2,4,5,5], w [4,3,3,3], out [2,3,11,11]; go [2,3,11,11].
  const std::vector<Input> tin = {{"go", {2, 3, 11, 11}}, {"x", {2, 4, 5, 5}}, {"w", {4, 3, 3, 3}}};
  // grad_input = conv(go, w, gi=[2,4,5,5], transposed=False): 2*2*4*3*9*25 = 10800.
  // grad_weight = conv(t(go)=[3,2,11,11], t(x)=[4,2,5,5], t(gw)=[3,4,3,3]): 2*3*4*2*9*25 = 10800.
  CHECK(flops_of(conv_backward(tin, true, 1, t + t + f, tuple_val({{2, 4, 5, 5}, {4, 3, 3, 3}, {}}))) == 21600);
}

TEST_CASE("scaled dot product attention: 2 bmm forward, 5 bmm backward") {
  // q [2,4,16,8], k [2,4,32,8], v [2,4,32,6]; bh = 8:
  // forward 2*8*16*32*8 + 2*8*16*32*6 = 65536 + 49152 = 114688;
  // backward 2*8*16*32*(3*8 + 2*6) = 8192 * 36 = 294912.
  const std::vector<Input> in = {{"q", {2, 4, 16, 8}}, {"k", {2, 4, 32, 8}}, {"v", {2, 4, 32, 6}}};
  for (const char* op : {"aten._scaled_dot_product_efficient_attention.default",
                         "aten._scaled_dot_product_flash_attention.default",
                         "aten._scaled_dot_product_cudnn_attention.default"}) {
    CAPTURE(op);
    auto g = one_op_graph(in, op, node_args({"q", "k", "v"}) + "args { none: true } args { bool: true }",
                          tuple_val({{2, 4, 16, 6}, {2, 4, 16}}));
    CHECK(flops_of(g) == 114688);
  }
  // Grouped-query attention (2 key/value heads): the query's 4 heads count.
  auto gqa = one_op_graph({{"q", {2, 4, 16, 8}}, {"k", {2, 2, 32, 8}}, {"v", {2, 2, 32, 6}}},
                          "aten._scaled_dot_product_flash_attention.default", node_args({"q", "k", "v"}),
                          tuple_val({{2, 4, 16, 6}}));
  CHECK(flops_of(gqa) == 114688);
  std::vector<Input> bin = in;
  bin.insert(bin.begin(), Input{"go", {2, 4, 16, 6}});
  for (const char* op : {"aten._scaled_dot_product_efficient_attention_backward.default",
                         "aten._scaled_dot_product_flash_attention_backward.default",
                         "aten._scaled_dot_product_cudnn_attention_backward.default"}) {
    CAPTURE(op);
    auto g = one_op_graph(bin, op, node_args({"go", "q", "k", "v"}), tuple_val({{2, 4, 16, 8}, {2, 4, 32, 8}}));
    CHECK(flops_of(g) == 294912);
  }
}

TEST_CASE("flash/efficient attention kernels: [batch, seq, heads, dim] read positionally") {
  // q [2,16,4,8], k [2,32,4,8], v [2,32,4,6] in (B, S, H, D). flop_counter
  // reads b=2, h=16, s_q=4, d_q=8, s_k=4, d_v=6: 2*32*4*4*(8+6) = 14336
  // forward and 1024*(3*8 + 2*6) = 36864 backward (not the true 114688).
  const std::vector<Input> in = {{"q", {2, 16, 4, 8}}, {"k", {2, 32, 4, 8}}, {"v", {2, 32, 4, 6}}};
  auto g = one_op_graph(in, "aten._flash_attention_forward.default",
                        node_args({"q", "k", "v"}) +
                            "args { none: true } args { none: true } args { int: 16 } args { int: 32 } "
                            "args { float: 0.0 } args { bool: true } args { bool: false }",
                        tuple_val({{2, 16, 4, 6}}));
  CHECK(flops_of(g) == 14336);
  g = one_op_graph(in, "aten._efficient_attention_forward.default",
                   node_args({"q", "k", "v"}) +
                       "args { none: true } args { none: true } args { none: true } args { none: true } "
                       "args { none: true } args { float: 0.0 } args { int: 1 }",
                   tuple_val({{2, 16, 4, 6}}));
  CHECK(flops_of(g) == 14336);
  std::vector<Input> bin = in;
  bin.insert(bin.begin(), Input{"go", {2, 16, 4, 6}});
  bin.push_back({"out", {2, 16, 4, 6}});
  bin.push_back({"lse", {2, 4, 16}});
  g = one_op_graph(bin, "aten._flash_attention_backward.default",
                   node_args({"go", "q", "k", "v", "out", "lse"}) +
                       "args { none: true } args { none: true } args { int: 16 } args { int: 32 }",
                   tuple_val({{2, 16, 4, 8}}));
  CHECK(flops_of(g) == 36864);
  g = one_op_graph(bin, "aten._efficient_attention_backward.default",
                   node_args({"go", "q", "k", "v"}) + "args { none: true } " + node_args({"out"}) +
                       "args { none: true } args { none: true } args { int: 16 } args { int: 32 }",
                   tuple_val({{2, 16, 4, 8}}));
  CHECK(flops_of(g) == 36864);
}

TEST_CASE("nested attention: each sequence at its maximum length") {
  // Offsets of 3 entries = 2 sequences; each [1, 4 heads, 16|32, 8|6]:
  // forward 2*4*16*32*(8+6) = 57344 per sequence, 114688 in all;
  // backward 4096*(24+12) = 147456 per sequence, 294912 in all.
  const std::string sym = R"(nodes { name: "s" op: "placeholder" target: "s" val { sym { kind: "int" expr: "s0" hint: 16 } } })";
  auto g = one_op_graph({{"q", {40, 4, 8}}, {"k", {70, 4, 8}}, {"v", {70, 4, 6}}, {"cq", {3}}, {"ck", {3}}},
                        "aten._flash_attention_forward.default",
                        node_args({"q", "k", "v", "cq", "ck", "s"}) + "args { int: 32 } args { float: 0.0 } args { bool: true }",
                        tuple_val({{40, 4, 6}}), sym);
  CHECK(flops_of(g) == 114688);
  g = one_op_graph({{"q", {1, 40, 4, 8}}, {"k", {1, 70, 4, 8}}, {"v", {1, 70, 4, 6}}, {"cq", {3}}, {"ck", {3}}},
                   "aten._efficient_attention_forward.default",
                   node_args({"q", "k", "v"}) + "args { none: true } " + node_args({"cq", "ck"}) +
                       "args { int: 16 } args { int: 32 } args { float: 0.0 } args { int: 0 }",
                   tuple_val({{1, 40, 4, 6}}));
  CHECK(flops_of(g) == 114688);
  g = one_op_graph({{"go", {40, 4, 6}}, {"q", {40, 4, 8}}, {"k", {70, 4, 8}}, {"v", {70, 4, 6}}, {"out", {40, 4, 6}},
                    {"lse", {4, 40}}, {"cq", {3}}, {"ck", {3}}},
                   "aten._flash_attention_backward.default",
                   node_args({"go", "q", "k", "v", "out", "lse", "cq", "ck"}) + "args { int: 16 } args { int: 32 }",
                   tuple_val({{40, 4, 8}}));
  CHECK(flops_of(g) == 294912);
}

TEST_CASE("ops without a formula count 1; bad shapes are input errors") {
  auto g = one_op_graph({{"a", {64, 32}}, {"b", {64, 32}}}, "aten.add.Tensor", node_args({"a", "b"}), tensor_val({64, 32}));
  CHECK(flops_of(g) == 0);
  CHECK(pt::estimate_runtime(g, g.find("op")) == 1.0);
  CHECK(pt::estimate_runtime(g, g.find("a")) == 1.0);  // placeholders too
  // An empty matmul counts 0 FLOPs, hence runtime 1.
  g = one_op_graph({{"a", {0, 32}}, {"b", {32, 16}}}, "aten.mm.default", node_args({"a", "b"}), tensor_val({0, 16}));
  CHECK(pt::estimate_runtime(g, g.find("op")) == 1.0);
  g = one_op_graph({{"a", {2, 64, 32}}, {"b", {32, 16}}}, "aten.mm.default", node_args({"a", "b"}), tensor_val({64, 16}));
  CHECK_THROWS_AS(flops_of(g), pt::InputError);
  g = one_op_graph({{"a", {64, 32}}}, "aten.mm.default", node_args({"a"}) + "args { int: 3 }", tensor_val({64, 16}));
  CHECK_THROWS_WITH_AS(flops_of(g), doctest::Contains("node 'op'"), pt::InputError);
}
