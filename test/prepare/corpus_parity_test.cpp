// Parity with PyTorch on the corpus: after dead-code elimination and CSE the
// survivors are exactly each run's after_cse_nodes (names, graph order), for
// every run recorded (cse on in all runs but `no_cse`; the scale graphs only
// have `default`).
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "graph/graph_io.h"
#include "graph/validate.h"
#include "prepare/prepare.h"
#include "prepare/text_graph.h"
#include "support/reference.h"

namespace {

const char* const kModels[] = {"linear_ce",      "gpt2_124m",      "gpt2_dropout_l2",
                               "resnet18",       "mlp_dynamic",    "sac_mlp",
                               "scale/gpt2_l24", "scale/gpt2_l48", "scale/gpt2_l96"};

pt::Graph load_graph(const std::string& model) {
  const std::string path = pt::test::corpus_path(model + ".pb");
  return pt::validate(pt::read_graph(path, pt::Format::Binary), path);
}

}  // namespace

TEST_CASE("survivors of dead-code elimination and CSE equal PyTorch's after_cse_nodes") {
  for (const char* model : kModels) {
    CAPTURE(model);
    const pt::Graph g = load_graph(model);
    const auto ref = pt::test::load_reference(pt::test::corpus_path(std::string(model) + ".ref.json"));
    std::set<bool> cse_seen;
    for (const auto& run : ref.runs()) {
      CAPTURE(run.config());
      const pt::Settings settings = pt::test::settings_of(run);
      CHECK(settings.cse == (run.config() != "no_cse"));
      if (!cse_seen.insert(settings.cse).second) continue;  // other settings do not change this stage
      const pt::PrepareResult r = pt::prepare(g, settings);
      const std::vector<std::string> want(run.after_cse_nodes().begin(), run.after_cse_nodes().end());
      CHECK(pt::test::node_names(r.graph) == want);
      CHECK(r.graph.size() + r.dead.size() + r.merged.size() == static_cast<size_t>(g.size()));
    }
    if (!cse_seen.count(false)) {
      // No recorded cse=false run (scale graphs): cse off keeps every live node.
      pt::Settings off;
      off.cse = false;
      const pt::PrepareResult r = pt::prepare(g, off);
      CHECK(r.merged.empty());
      CHECK(r.graph.size() + r.dead.size() == static_cast<size_t>(g.size()));
    }
  }
}

TEST_CASE("sac_mlp: the prepared MUST_SAVE nodes are exactly those PyTorch banned as marked MUST_SAVE") {
  // The tag passes add nothing here (no recompute-tagged node feeds one of a
  // later region, no hooks, collectives, effects or copy_ pairs), so the
  // MUST_SAVE nodes are the policy's eight addmm; all are required_fw, so each
  // gets the ban `cannot recompute: marked MUST_SAVE` in the default run.
  const pt::Graph g = load_graph("sac_mlp");
  const auto ref = pt::test::load_reference(pt::test::corpus_path("sac_mlp.ref.json"));
  const pt::PrepareResult r = pt::prepare(g, pt::Settings{});
  CHECK(r.must_save.empty());
  std::set<std::string> must_save;
  for (const pt::Node& n : r.graph.nodes) {
    if (n.recompute == pt::Recompute::MustSave) must_save.emplace(n.name);
  }
  std::set<std::string> banned;
  for (const auto& run : ref.runs()) {
    if (run.config() != "default") continue;
    for (const auto& [name, entry] : run.flow_network()) {
      if (entry.banned() == "cannot recompute: marked MUST_SAVE") banned.insert(name);
    }
  }
  CHECK(banned.size() == 8);
  CHECK(must_save == banned);
}
