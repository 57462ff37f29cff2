// ban_recompute_rng_seeds: no plan recomputes a random seed, its lookups or
// a random op reading no seed, at any memory budget and with every knapsack
// solver; turned off, PyTorch 2.11's choice (which may recompute them) is
// restored.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "graph/graph_io.h"
#include "graph/validate.h"
#include "partition/ban_heuristics.h"
#include "pipeline/pipeline.h"
#include "support/reference.h"

namespace {

using namespace pt;

const Graph& dropout_graph() {
  static const Graph g = [] {
    const std::string path = test::corpus_graph_path("gpt2_dropout_l2");
    return validate(read_graph(path, format_from_path(path)), path);
  }();
  return g;
}

// Names of the recomputed nodes whose recomputation draws other random numbers.
std::vector<std::string> random_recomputed(const Settings& s) {
  const Partitioned p = partition_joint(dropout_graph(), s, 1);
  const Graph& g = p.prepared.graph;
  std::vector<std::string> out;
  for (NodeId id : p.result.extraction.recomputed) {
    if (recompute_changes_random_numbers(g, id, s.op_classes)) out.emplace_back(g[id].name);
  }
  return out;
}

Settings at_budget(double budget, const std::string& solver, bool ban) {
  Settings s;
  s.set("activation_memory_budget", std::to_string(budget));
  s.set("activation_memory_budget_solver", solver);
  s.ban_recompute_rng_seeds = ban;
  return s;
}

}  // namespace

TEST_CASE("the corpus graph has inductor's seed, lookups and seeded random ops") {
  const Graph& g = dropout_graph();
  const OpClasses ops = OpClasses::pytorch_defaults();
  int generators = 0, lookups = 0, seeded = 0;
  for (NodeId id = 0; id < g.size(); ++id) {
    switch (random_role(g, id, ops)) {
      case RandomRole::SeedGenerator: ++generators; break;
      case RandomRole::SeedLookup: ++lookups; break;
      case RandomRole::SeededRandom: ++seeded; break;
      default: break;
    }
  }
  CHECK(generators == 1);
  CHECK(lookups == 4);
  CHECK(seeded == 4);
}

TEST_CASE("by default no budget and no solver recomputes anything random in gpt2_dropout_l2") {
  for (const char* solver : {"dp", "greedy", "ilp"}) {
    for (int tenth = 0; tenth <= 10; ++tenth) {
      const double budget = tenth / 10.0;
      INFO("solver " << solver << ", budget " << budget);
      CHECK(random_recomputed(at_budget(budget, solver, true)).empty());
    }
  }
}

TEST_CASE("ban_recompute_rng_seeds=false restores PyTorch's choice, which recomputes the seed at budget 0.5") {
  const auto recomputed = random_recomputed(at_budget(0.5, "dp", false));
  CHECK(std::find(recomputed.begin(), recomputed.end(), "inductor_seeds_default") != recomputed.end());
}

TEST_CASE("the memory budget's un-banning never lifts a random-seed ban") {
  const Graph& g = dropout_graph();
  Settings s;
  const BanOptions base = BanOptions::from_settings(s);
  CHECK(base.rng_seeds);
  BanOptions lifted = base;
  lifted.not_in_allowlist = false;
  lifted.dont_ban.assign(g.size(), true);  // the knapsack chose to recompute everything
  BanSet bans(g, s, lifted);
  const NodeId seed = g.find("inductor_seeds_default");
  REQUIRE(seed != kNoNode);
  CHECK(bans.try_ban(seed, BanReason::RandomSeed));
  CHECK(bans.reason(seed) == BanReason::RandomSeed);
  // Any other ban is refused on a node the budget un-banned.
  const NodeId lookup = g.find("inductor_lookup_seed_default");
  REQUIRE(lookup != kNoNode);
  CHECK_FALSE(bans.try_ban(lookup, BanReason::NotInAllowlist));
  // A later rule does not replace the reason no budget lifts.
  BanSet plain(g, s, base);
  CHECK(plain.try_ban(seed, BanReason::RandomSeed));
  CHECK(plain.try_ban(seed, BanReason::LongFusibleChain));
  CHECK(plain.reason(seed) == BanReason::RandomSeed);
}

TEST_CASE("ban_recompute_rng_seeds is a setting, read once into the ban options") {
  Settings s;
  CHECK(s.ban_recompute_rng_seeds);
  s.set("ban_recompute_rng_seeds", "false");
  CHECK_FALSE(BanOptions::from_settings(s).rng_seeds);
  s.set("aggressive_recomputation", "true");
  s.set("ban_recompute_rng_seeds", "true");
  CHECK(BanOptions::from_settings(s).rng_seeds);  // aggressive recomputation keeps it
}
