// FLOP counts on the real corpus graphs. Single nodes are worked out by hand
// from their shapes; the per-model totals come from an independent Python
// transcription of flop_counter.py's formulas run over the same files.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "analysis/runtime_estimate.h"
#include "graph/graph_io.h"
#include "graph/validate.h"

namespace {

pt::Graph load(const std::string& model) {
  const std::string path = std::string(PT_TEST_DIR) + "/corpus/" + model + ".pb";
  return pt::validate(pt::read_graph(path, pt::Format::Binary), path);
}

uint64_t flops(const pt::Graph& g, const char* name) {
  const pt::NodeId id = g.find(name);
  REQUIRE(id != pt::kNoNode);
  return pt::count_flops(g, id);
}

}  // namespace

TEST_CASE("gpt2_124m: addmm, padded lm-head mm and cuDNN attention") {
  const pt::Graph g = load("gpt2_124m");
  CHECK(flops(g, "addmm") == 14495514624ULL);          // [4096,768] @ [768,2304]: 2*4096*2304*768
  CHECK(flops(g, "mm_default_2") == 316233744384ULL);  // [4096,768] @ [768,50264]: 2*4096*50264*768
  // q = k = v = [4, 12, 1024, 64]: 2*48*1024*1024*(64 + 64) forward,
  // 2*48*1024*1024*(3*64 + 2*64) backward.
  CHECK(flops(g, "_scaled_dot_product_cudnn_attention") == 12884901888ULL);
  CHECK(flops(g, "_scaled_dot_product_cudnn_attention_backward") == 32212254720ULL);
  CHECK(pt::estimate_runtime(g, g.find("_scaled_dot_product_cudnn_attention")) == 12884901888.0);
}

TEST_CASE("resnet18: convolution and convolution_backward") {
  const pt::Graph g = load("resnet18");
  // x [16,3,224,224], w [64,3,7,7], out [16,64,112,112]: 2*16*64*3*49*12544.
  CHECK(flops(g, "convolution") == 3776446464ULL);
  // go = x = [16,512,7,7], w [512,512,3,3], mask (T, T, F):
  // grad_input 2*16*512*512*9*49 + grad_weight 2*512*512*16*9*49.
  CHECK(flops(g, "convolution_backward") == 7398752256ULL);
  // mask (F, T, F), the stem: grad_weight only, 2*3*64*16*49*12544.
  CHECK(flops(g, "convolution_backward_19") == 3776446464ULL);
}

TEST_CASE("every call_function node of every corpus graph is counted") {
  struct Expected {
    const char* model;
    int nonzero;       // nodes with a FLOP formula
    uint64_t total;    // sum of their FLOPs
  };
  const Expected expected[] = {
      {"gpt2_124m", 171, 3577221218304ULL},   {"resnet18", 43, 170374594560ULL},
      {"linear_ce", 3, 7589609865216ULL},     {"mlp_dynamic", 8, 2830368768ULL},
      {"sac_mlp", 24, 51539607552ULL},        {"gpt2_dropout_l2", 31, 329785540608ULL},
  };
  for (const Expected& e : expected) {
    CAPTURE(e.model);
    const pt::Graph g = load(e.model);
    int nonzero = 0;
    uint64_t total = 0;
    for (pt::NodeId id = 0; id < g.size(); ++id) {
      const uint64_t f = pt::count_flops(g, id);
      nonzero += f > 0;
      total += f;
      CHECK(pt::estimate_runtime(g, id) >= 1.0);
    }
    CHECK(nonzero == e.nonzero);
    CHECK(total == e.total);
  }
}
