// Checkpoints on a model's repeated blocks, as candidates of the
// memory-limit planner: which nodes form a block, what the candidates
// recompute, and how their peaks fall.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "graph/graph_io.h"
#include "partition/partitioner.h"
#include "pipeline/pipeline.h"
#include "plan/block_checkpoints.h"
#include "plan/memory_limit_plan.h"
#include "prepare/prepare.h"
#include "report/save_reason.h"

namespace pt {

namespace {

struct Corpus {
  PrepareResult prepared;
  PartitionResult lent;
};

Corpus corpus(const std::string& name, const Settings& s = {}) {
  const LoadedGraph loaded = load_graph_file(std::string(PT_TEST_DIR) + "/corpus/" + name, Format::Binary);
  Corpus c{prepare(loaded.graph, s), {}};
  c.lent = partition_graph(c.prepared.graph, s);
  return c;
}

int block_count(const std::vector<int>& block) { return *std::max_element(block.begin(), block.end()) + 1; }

}  // namespace

TEST_CASE("a block is a module path up to its first numbered part") {
  CHECK(block_prefix("L['m'].blocks.3.fc") == "L['m'].blocks.3");
  CHECK(block_prefix("L['m'].blocks.3") == "L['m'].blocks.3");
  CHECK(block_prefix("L['m'].layer1.0.conv1") == "L['m'].layer1.0");
  CHECK(block_prefix("L['m'].model.layers.11.mlp.up_proj") == "L['m'].model.layers.11");
  CHECK(block_prefix("L['self'].encoder.layers.encoder_layer_11.mlp") == "L['self'].encoder.layers.encoder_layer_11");
  CHECK(block_prefix("L['m'].features.1.0.block") == "L['m'].features.1");
  CHECK(block_prefix("L['m'].wte").empty());
  CHECK(block_prefix("L['m'].layer1").empty());  // a stage's name, not a number
  CHECK(block_prefix("L['m'].x_").empty());
  CHECK(block_prefix("L['m']").empty());
  CHECK(block_prefix("").empty());

  const Corpus gpt2 = corpus("gpt2_124m.pb");
  const Graph& g = gpt2.prepared.graph;
  const std::vector<int> block = forward_blocks(g, gpt2.lent);
  CHECK(block_count(block) == 12);
  for (NodeId id = 0; id < g.size(); ++id) {
    const std::string path = g.record(id).module_path();
    CAPTURE(path);
    if (g[id].op != OpKind::CallFunction || !gpt2.lent.classification.required_fw[id]) {
      CHECK(block[id] == -1);
    } else if (path.starts_with("L['m'].blocks.3.") || path == "L['m'].blocks.3") {
      CHECK(block[id] == 3);
    } else if (path.find(".blocks.") == std::string::npos) {
      CHECK(block[id] == -1);  // the embeddings, the last LayerNorm, the head
    }
  }
  // torchvision's ResNet: layer1.0 ... layer4.1, the stem outside.
  const Corpus resnet = corpus("resnet18.pb");
  CHECK(block_count(forward_blocks(resnet.prepared.graph, resnet.lent)) == 8);
}

TEST_CASE("block checkpoints lower the peak block by block and never recompute a random op") {
  const Device device = parse_device("h100");
  const Settings s;
  const Corpus gpt2 = corpus("gpt2_124m.pb");
  const std::vector<PlanCandidate> plans = block_checkpoint_candidates(gpt2.prepared.graph, gpt2.lent, s, device, {}, 0);
  // First 1..12 blocks one at a time, then all 12 recomputed 2..6 at a time.
  REQUIRE(plans.size() == 12 + 5);
  const uint64_t default_peak = [&] {
    PlanCandidate d;
    predict_plan(gpt2.prepared.graph, gpt2.lent, s, device, {}, d);
    return d.peak_bytes;
  }();
  for (size_t i = 0; i < plans.size(); ++i) {
    CAPTURE(plans[i].description());
    REQUIRE(plans[i].error.empty());
    CHECK(plans[i].peak_bytes < default_peak);
    if (i > 0 && i < 12) {
      CHECK(plans[i].peak_bytes < plans[i - 1].peak_bytes);
      CHECK(plans[i].step_seconds > plans[i - 1].step_seconds);
    }
  }
  CHECK(plans[0].description() == "checkpoints on the first 1 of 12 blocks");
  CHECK(plans[12].description() == "checkpoints on all 12 blocks, 2 at a time");
  // Saving every other block's input lowers the peak below saving each.
  CHECK(plans[12].peak_bytes < plans[11].peak_bytes);
  // The report says the plan saves them, not a min cut (it has none).
  const PartitionResult all = partition_plan(gpt2.prepared.graph, s, plans[11]);
  int planned = 0;
  for (NodeId id : all.extraction.fw_saved_outputs()) {
    const std::string_view code = save_reason(gpt2.prepared.graph, all, id).code;
    CHECK(code != "min_cut");
    planned += code == "memory_limit_plan";
  }
  CHECK(planned > 12);
  CHECK(save_reason(gpt2.prepared.graph, gpt2.lent, gpt2.lent.extraction.fw_saved_outputs().back()).code !=
        "memory_limit_plan");

  // Dropout inside the blocks: its random op stays in the forward.
  const Corpus dropout = corpus("gpt2_dropout_l2.pb");
  const Graph& g = dropout.prepared.graph;
  const std::vector<PlanCandidate> dplans = block_checkpoint_candidates(g, dropout.lent, s, device, {}, 0);
  REQUIRE(!dplans.empty());
  for (const PlanCandidate& c : dplans) {
    CAPTURE(c.description());
    REQUIRE(c.error.empty());
    const PartitionResult r = partition_plan(g, s, c);
    CHECK(!r.extraction.recomputed.empty());
    for (NodeId id : r.extraction.recomputed) CHECK_MESSAGE(!s.op_classes.is_random(g[id]), g[id].name);
  }
}

TEST_CASE("block checkpoints keep the values a checkpointing policy marks must-save") {
  const Settings s;
  const Corpus sac = corpus("sac_mlp.pb");
  const Graph& g = sac.prepared.graph;
  // Some must-save values lie inside the blocks, where everything else is recomputed.
  const std::vector<int> block = forward_blocks(g, sac.lent);
  int must_save_inside = 0;
  for (NodeId id = 0; id < g.size(); ++id) must_save_inside += g[id].recompute == Recompute::MustSave && block[id] >= 0;
  REQUIRE(must_save_inside > 0);
  const std::vector<PlanCandidate> plans = block_checkpoint_candidates(g, sac.lent, s, parse_device("h100"), {}, 0);
  REQUIRE(!plans.empty());
  for (const PlanCandidate& c : plans) {
    CAPTURE(c.description());
    REQUIRE(c.error.empty());
    const PartitionResult r = partition_plan(g, s, c);
    for (NodeId id : r.extraction.recomputed) CHECK_MESSAGE(g[id].recompute != Recompute::MustSave, g[id].name);
  }
}

TEST_CASE("memory_limit_block_checkpoints=false turns them off") {
  Settings s;
  s.set("memory_limit_block_checkpoints", "false");
  const Corpus gpt2 = corpus("gpt2_dropout_l2.pb", s);
  CHECK(block_checkpoint_candidates(gpt2.prepared.graph, gpt2.lent, s, parse_device("h100"), {}, 0).empty());
}

}  // namespace pt
