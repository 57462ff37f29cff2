// Memory-budget parity with PyTorch 2.11 on the corpus: for the budget_0.5
// and budget_0.1 runs of every model, the saved set equals fw_saved_outputs
// and the sequence of cut values equals solves[].cut_value.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "budget/memory_budget.h"
#include "graph/graph_io.h"
#include "graph/validate.h"
#include "partition/partitioner.h"
#include "prepare/prepare.h"
#include "support/reference.h"

namespace {

using namespace pt;

void check_budget_runs(const std::string& model) {
  const auto ref = test::load_reference(test::corpus_path(model + ".ref.json"));
  const std::string path = test::corpus_graph_path(model);
  const Graph joint = validate(read_graph(path, format_from_path(path)), path);
  int checked = 0;
  for (const auto& run : ref.runs()) {
    if (run.config().rfind("budget", 0) != 0) continue;
    INFO("model " << model << ", run " << run.config());
    const Settings s = test::settings_of(run);
    const PrepareResult prepared = prepare(joint, s);
    const Graph& g = prepared.graph;
    const PartitionResult r = partition_graph(g, s);
    std::vector<std::string> saved;
    for (NodeId id : r.extraction.fw_saved_outputs()) saved.emplace_back(g[id].name);
    CHECK(saved == std::vector<std::string>(run.fw_saved_outputs().begin(), run.fw_saved_outputs().end()));
    std::vector<FlowValue> want;
    for (const auto& solve : run.solves()) want.push_back(solve.cut_value());
    CHECK(r.cut_values == want);
    REQUIRE(r.budget != nullptr);
    ++checked;
  }
  CHECK(checked == 2);
}

}  // namespace

TEST_CASE("budget parity: linear_ce") { check_budget_runs("linear_ce"); }
TEST_CASE("budget parity: mlp_dynamic") { check_budget_runs("mlp_dynamic"); }
TEST_CASE("budget parity: sac_mlp") { check_budget_runs("sac_mlp"); }
TEST_CASE("budget parity: gpt2_dropout_l2") { check_budget_runs("gpt2_dropout_l2"); }
TEST_CASE("budget parity: resnet18") { check_budget_runs("resnet18"); }
TEST_CASE("budget parity: gpt2_124m") { check_budget_runs("gpt2_124m"); }
