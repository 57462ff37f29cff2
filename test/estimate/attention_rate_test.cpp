// Fused attention's compute time (estimate/attention_rate.h): sequence axes
// padded to 128-row tiles, a rate that rises with the padded length and the
// head size, causal and backward kernels with their own fits, and the
// bandwidth model charging it in place of the matmul rate.
#include <doctest/doctest.h>

#include "support/relative.h"

#include <optional>
#include <string>

#include "analysis/flop_formulas.h"
#include "estimate/attention_rate.h"
#include "estimate/bandwidth_model.h"
#include "report/graph_builder.h"

namespace {

using pt::AttentionFit;
using pt::AttentionRates;
using pt::Graph;
using pt::test::GraphBuilder;

// Distinct fits, so a test sees which one was taken.
AttentionRates rates() {
  AttentionRates r;
  r.forward = AttentionFit{1e12, 2e12, 100};
  r.causal_forward = AttentionFit{3e12, 4e12, 200};
  r.backward = AttentionFit{5e12, 6e12, 300};
  r.causal_backward = AttentionFit{7e12, 8e12, 400};
  return r;
}

// q, k, v of shape (2, 3, seq, head), one forward attention "att" (causal
// or not) and its backward "att_bw".
Graph attention_graph(int64_t seq, int64_t head, bool causal) {
  const std::vector<int64_t> s{2, 3, seq, head};
  GraphBuilder b;
  b.input("q", s, "bfloat16");
  b.input("k", s, "bfloat16");
  b.input("v", s, "bfloat16");
  b.input("g", s, "bfloat16", "is_backward");
  const std::string flag = causal ? "true" : "false";
  // (query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal)
  b.op("att", "aten._scaled_dot_product_cudnn_attention.default", {"q", "k", "v"}, s, "bfloat16", {},
       "args { none: true } args { bool: true } args { float: 0.0 } args { bool: " + flag + " }");
  // (grad_out, query, key, value, out, logsumexp, 6-10, max_q, max_k, dropout_p, is_causal)
  b.op("att_bw", "aten._scaled_dot_product_cudnn_attention_backward.default", {"g", "q", "k", "v", "att", "att"}, s,
       "bfloat16", {},
       "args { none: true } args { none: true } args { none: true } args { none: true } args { none: true } "
       "args { int: " + std::to_string(seq) + " } args { int: " + std::to_string(seq) +
       " } args { float: 0.0 } args { bool: " + flag + " }");
  return b.build({"att", "att_bw"}, 1);
}

double fitted(double flops, double seq, double rate_long, double s0) {
  const double padded = (static_cast<int64_t>(seq) + 127) / 128 * 128;
  return flops * (padded * padded) / (seq * seq) / (rate_long * padded / (padded + s0));
}

}  // namespace

TEST_CASE("attention time: 128-row tiles, a rate rising with the padded length") {
  const Graph g = attention_graph(197, 64, false);
  const uint64_t f = 1000000000;
  const auto fwd = pt::attention_seconds(g, g.find("att"), f, rates());
  REQUIRE(fwd);
  // 197 tokens run as 256: (256/197)^2 the work, at 1e12 * 256 / (256 + 100).
  CHECK(*fwd == pt::test::relative(fitted(f, 197, 1e12, 100)));
  CHECK(*fwd == pt::test::relative(1e9 * (256.0 * 256) / (197.0 * 197) / (1e12 * 256 / 356)));
  const auto bwd = pt::attention_seconds(g, g.find("att_bw"), f, rates());
  REQUIRE(bwd);
  CHECK(*bwd == pt::test::relative(fitted(f, 197, 5e12, 300)));
  // A length on the tile grid pays no padding.
  const Graph g256 = attention_graph(256, 64, false);
  CHECK(*pt::attention_seconds(g256, g256.find("att"), f, rates()) == pt::test::relative(1e9 / (1e12 * 256 / 356)));
}

TEST_CASE("attention time: causal kernels take their own fits; head sizes interpolate and clamp") {
  const uint64_t f = 1000000000;
  const Graph causal = attention_graph(1024, 64, true);
  CHECK(*pt::attention_seconds(causal, causal.find("att"), f, rates()) == pt::test::relative(fitted(f, 1024, 3e12, 200)));
  CHECK(*pt::attention_seconds(causal, causal.find("att_bw"), f, rates()) ==
        pt::test::relative(fitted(f, 1024, 7e12, 400)));
  const Graph d96 = attention_graph(1024, 96, false);  // halfway between 64 and 128
  CHECK(*pt::attention_seconds(d96, d96.find("att"), f, rates()) == pt::test::relative(fitted(f, 1024, 1.5e12, 100)));
  const Graph d32 = attention_graph(1024, 32, false);  // below 64: the 64 rate
  CHECK(*pt::attention_seconds(d32, d32.find("att"), f, rates()) == pt::test::relative(fitted(f, 1024, 1e12, 100)));
  const Graph d256 = attention_graph(1024, 256, false);  // above 128: the 128 rate
  CHECK(*pt::attention_seconds(d256, d256.find("att"), f, rates()) == pt::test::relative(fitted(f, 1024, 2e12, 100)));
}

TEST_CASE("attention time: other ops and devices without a fit get none") {
  const Graph g = attention_graph(197, 64, false);
  CHECK_FALSE(pt::attention_seconds(g, g.find("q"), 1000, rates()));
  CHECK_FALSE(pt::attention_seconds(g, g.find("att"), 1000, AttentionRates{}));
  GraphBuilder b;
  b.input("a", {64, 64});
  b.op("mm", "aten.mm.default", {"a", "a"}, {64, 64});
  const Graph m = b.build({"mm"});
  CHECK_FALSE(pt::attention_seconds(m, m.find("mm"), 1000, rates()));
}

TEST_CASE("the bandwidth model charges attention at the device's fit, the matmul rate without one") {
  const Graph g = attention_graph(197, 64, false);
  pt::Subgraph pass = pt::test::whole_pass(g);
  pass.keep[g.find("att_bw")] = false;
  pass.keep[g.find("g")] = false;
  // Compute-bound on purpose: 1e15 B/s, so the bytes cost nothing.
  pt::Device device{"test", 1e15, 1e15, 1e15};
  device.attention = rates();
  const uint64_t f = pt::flops::sdpa({2, 3, 197, 64}, {2, 3, 197, 64}, {2, 3, 197, 64});
  const auto& ops = pt::OpClasses::pytorch_defaults();
  const pt::PassEstimate fitted_pass = pt::estimate_pass(g, pass, {g.find("att")}, ops, device, {}, {});
  CHECK(fitted_pass.seconds == pt::test::relative(fitted(static_cast<double>(f), 197, 1e12, 100)));
  pt::BandwidthOptions roofline;
  roofline.apply_device_efficiency = false;
  const pt::PassEstimate plain = pt::estimate_pass(g, pass, {g.find("att")}, ops, device, roofline, {});
  CHECK(plain.seconds == pt::test::relative(static_cast<double>(f) / 1e15));
}
