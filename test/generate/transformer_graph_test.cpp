// The synthetic transformer graphs: valid, partitionable without
// infeasibility (with and without checkpointing), deterministic, and shaped
// as AOTAutograd's joint graphs are (primals, one tangent, one gradient per
// primal, parameters as static-lifetime inputs).
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "generate/transformer_graph.h"
#include "graph/graph_io.h"
#include "graph/validate.h"
#include "partition/partitioner.h"
#include "prepare/prepare.h"

namespace {

using pt::gen::TransformerSpec;

TransformerSpec small(int64_t layers, bool checkpoint = false) {
  TransformerSpec s;
  s.layers = layers;
  s.hidden = 64;
  s.heads = 4;
  s.seq = 32;
  s.batch = 2;
  s.vocab = 1000;
  s.checkpoint = checkpoint;
  return s;
}

pt::Graph validated(const TransformerSpec& s) { return pt::validate(pt::gen::transformer_graph(s), "generated"); }

// Partitions under default settings; throws InfeasibleError when no finite cut exists.
pt::PartitionResult partition(const pt::Graph& joint) {
  const pt::Settings settings;
  const pt::PrepareResult prepared = pt::prepare(joint, settings);
  return pt::partition_graph(prepared.graph, settings);
}

}  // namespace

TEST_CASE("generated graphs validate and partition with a finite cut") {
  for (bool checkpoint : {false, true}) {
    for (const char* dtype : {"bfloat16", "float32"}) {
      TransformerSpec s = small(3, checkpoint);
      s.dtype = dtype;
      INFO("checkpoint " << checkpoint << ", dtype " << dtype);
      const pt::Graph g = validated(s);
      const pt::PartitionResult r = partition(g);
      CHECK(r.solution.cut.feasible);
      CHECK(r.solution.cut.value > 0);
      CHECK(!r.extraction.fw_saved_outputs().empty());
    }
  }
}

TEST_CASE("the same spec writes the same bytes") {
  for (bool checkpoint : {false, true}) {
    const auto a = pt::serialize_message(*pt::gen::transformer_graph(small(2, checkpoint)), pt::Format::Binary);
    const auto b = pt::serialize_message(*pt::gen::transformer_graph(small(2, checkpoint)), pt::Format::Binary);
    CHECK(a == b);
  }
}

TEST_CASE("inputs and outputs are as AOTAutograd lays them out") {
  const int64_t layers = 2;
  const pt::Graph g = validated(small(layers));
  const int64_t primals = 3 + 12 * layers + 3;  // tokens, wte, wpe, blocks, final norm, mask
  CHECK(static_cast<int64_t>(g.primals.size()) == primals);
  int tangents = 0;
  for (const pt::Node& n : g.nodes) tangents += n.input_kind == pt::InputKind::Tangent;
  CHECK(tangents == 1);
  CHECK(g.num_fwd_outputs == 1);
  REQUIRE(static_cast<int64_t>(g.outputs.size()) == 1 + primals);
  CHECK(g[g.outputs[0]].value_kind == pt::ValueKind::Tensor);  // the loss
  CHECK(g.outputs[1] == pt::kNoNode);                           // token ids: no gradient
  CHECK(g.outputs.back() == pt::kNoNode);                       // mask buffer
  for (size_t k = 2; k + 1 < g.outputs.size(); ++k) {
    const pt::NodeId grad = g.outputs[k];
    const pt::NodeId primal = g.primals[k - 1];
    REQUIRE(grad != pt::kNoNode);
    INFO("gradient of " << g[primal].name << " is " << g[grad].name);
    const pt::proto::Node grad_record = g.record(grad), primal_record = g.record(primal);
    const auto& gs = grad_record.val().tensor().shape();
    const auto& ps = primal_record.val().tensor().shape();
    CHECK(std::vector<int64_t>(gs.begin(), gs.end()) == std::vector<int64_t>(ps.begin(), ps.end()));
    CHECK(g.record(grad).val().tensor().dtype() == g.record(primal).val().tensor().dtype());
  }
  CHECK(!g.static_lifetime[g.primals[0]]);
  for (size_t k = 1; k < g.primals.size(); ++k) CHECK(g.static_lifetime[g.primals[k]]);
}

TEST_CASE("forward and backward nodes carry partitioner tags and operator tags") {
  const pt::Graph g = validated(small(1));
  int forward = 0, backward = 0, pointwise = 0, reduction = 0;
  for (pt::NodeId id = 0; id + 1 < g.size(); ++id) {
    forward += g[id].tag == pt::PartitionerTag::IsForward;
    backward += g[id].tag == pt::PartitionerTag::IsBackward;
    const pt::proto::Node record = g.record(id);
    for (const auto& t : record.op_tags()) {
      pointwise += t == "pointwise";
      reduction += t == "reduction";
    }
  }
  CHECK(forward + backward == g.size() - 1);
  CHECK(forward > 50);
  CHECK(backward > forward);
  CHECK(pointwise > 50);
  CHECK(reduction > 5);
  for (const char* target : {"aten.bmm.default", "aten.amax.default", "aten.exp.default", "aten.var_mean.correction",
                             "aten.addmm.default", "aten.tanh.default", "aten.embedding.default"}) {
    bool found = false;
    for (const pt::Node& n : g.nodes) found = found || n.target == target;
    CHECK_MESSAGE(found, target);
  }
}

TEST_CASE("--checkpoint tags each block's region, matmuls MUST_SAVE, residual adds untagged") {
  const pt::Graph g = validated(small(2, true));
  int tagged = 0;
  for (const pt::Node& n : g.nodes) {
    if (n.recompute == pt::Recompute::None) continue;
    ++tagged;
    REQUIRE(n.has_ac_graph_id);
    CHECK((n.ac_graph_id == 1 || n.ac_graph_id == 2));
    CHECK(n.tag == pt::PartitionerTag::IsForward);
    const bool matmul = n.packet == "aten.mm" || n.packet == "aten.bmm" || n.packet == "aten.addmm";
    CHECK(n.recompute == (matmul ? pt::Recompute::MustSave : pt::Recompute::PreferRecompute));
  }
  CHECK(tagged > 100);
  // The residual stream: adds whose module is the block itself stay outside the region.
  int residual = 0;
  for (pt::NodeId id = 0; id < g.size(); ++id) {
    if (g[id].packet == "aten.add" && g.record(id).module_path() == "L['m'].blocks.0") {
      ++residual;
      CHECK(g[id].recompute == pt::Recompute::None);
    }
  }
  CHECK(residual == 2);
}

TEST_CASE("node count grows by the same amount per layer") {
  const auto n1 = validated(small(1)).size();
  const auto n2 = validated(small(2)).size();
  const auto n3 = validated(small(3)).size();
  CHECK(n3 - n2 == n2 - n1);
  CHECK(n2 - n1 > 150);
}

TEST_CASE("inconsistent specs are refused") {
  TransformerSpec s = small(1);
  s.heads = 5;  // 64 is not a multiple of 5
  CHECK_THROWS_AS(pt::gen::transformer_graph(s), std::invalid_argument);
  s = small(0);
  CHECK_THROWS_AS(pt::gen::transformer_graph(s), std::invalid_argument);
  s = small(1);
  s.dtype = "int8";
  CHECK_THROWS_AS(pt::gen::transformer_graph(s), std::invalid_argument);
}
