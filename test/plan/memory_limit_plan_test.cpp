// The memory-limit planner's bar on corpus graphs of three families: at
// 50-90% of the default plan's peak every limit gets a plan that fits, no
// slower as the limit grows and never slower than a fitting knob plan; at
// 1% of it, one line naming the smallest reachable peak.
#include <doctest/doctest.h>

#include "support/relative.h"

#include <array>
#include <cstdio>
#include <limits>
#include <map>
#include <string>

#include "support/under_sanitizer.h"
#include "graph/errors.h"
#include "graph/graph_io.h"
#include "pipeline/pipeline.h"
#include "plan/memory_limit_plan.h"
#include "plan/live_at_plan_peak.h"
#include "prepare/prepare.h"
#include "estimate/bandwidth_model.h"

namespace pt {

namespace {

struct Planned {
  PrepareResult prepared;
  PlanCandidates candidates;
};

Planned plan_graph(const std::string& name, const Settings& s = {}) {
  const LoadedGraph loaded = load_graph_file(std::string(PT_TEST_DIR) + "/corpus/" + name, Format::Binary);
  Planned p{prepare(loaded.graph, s), {}};
  p.candidates = plan_candidates(p.prepared.graph, s, parse_device("h100"), {});
  return p;
}

// Each graph is planned once for all the cases that read it (the planner is
// the slow part, minutes under the sanitizers).
const Planned& plan_corpus(const std::string& name) {
  static std::map<std::string, Planned> planned;
  auto it = planned.find(name);
  if (it == planned.end()) it = planned.emplace(name, plan_graph(name)).first;
  return it->second;
}

// Limits at or above the smallest peak any candidate reaches must get a
// plan; below it (where the inputs, gradients and the backward's own values
// alone exceed the limit) the planner must say so in one line. From
// `fits_from` percent of the default peak up, every limit must get a plan:
// each graph's smallest reachable peak is pinned so that a planner that
// loses low plans fails here.
void check_bar(const Planned& p, int fits_from) {
  const PlanCandidate& def = p.candidates.all.front();
  REQUIRE(def.family == PlanFamily::Default);
  REQUIRE(def.error.empty());
  const uint64_t floor = p.candidates.all[p.candidates.lowest_peak].peak_bytes;
  CHECK(floor <= def.peak_bytes);
  CHECK(floor <= def.peak_bytes * fits_from / 100);
  double slower_limit_step = std::numeric_limits<double>::infinity();
  std::printf("%s: default peak %llu, smallest reachable %llu (%.1f%%)\n", p.prepared.graph.header->name().c_str(),
              static_cast<unsigned long long>(def.peak_bytes), static_cast<unsigned long long>(floor),
              100.0 * static_cast<double>(floor) / static_cast<double>(def.peak_bytes));
  for (int percent = 50; percent <= 100; percent += 5) {
    CAPTURE(percent);
    const uint64_t limit = def.peak_bytes * percent / 100;
    if (limit < floor) {
      CHECK_THROWS_AS(choose_plan(p.candidates, MemoryLimit{limit}), InfeasibleError);
      continue;
    }
    const MemoryPlan plan = choose_plan(p.candidates, MemoryLimit{limit});
    CHECK(plan.chosen.peak_bytes <= limit);
    CHECK(plan.chosen.step_seconds <= slower_limit_step);  // monotone
    slower_limit_step = plan.chosen.step_seconds;
    for (const PlanCandidate& c : p.candidates.all) {
      if (is_pytorch_knob(c.family) && c.fits(limit)) CHECK(plan.chosen.step_seconds <= c.step_seconds);
    }
    std::printf("  %3d%%: %s, peak %llu, step %.4f ms, best knob %s ms\n", percent,
                plan.chosen.description().c_str(), static_cast<unsigned long long>(plan.chosen.peak_bytes),
                plan.chosen.step_seconds * 1e3,
                plan.best_knob ? std::to_string(plan.best_knob->step_seconds * 1e3).c_str() : "none fits");
  }
  try {
    choose_plan(p.candidates, MemoryLimit{def.peak_bytes / 100});
    FAIL("a limit of 1% of the default peak fitted");
  } catch (const InfeasibleError& e) {
    const std::string line = e.what();
    CHECK(line.find('\n') == std::string::npos);
    CHECK(line.find("smallest peak reached is") != std::string::npos);
    CHECK(line.find("at node '") != std::string::npos);
    CHECK(line.find("; live there: ") != std::string::npos);
    CHECK(line.find("inputs ") != std::string::npos);  // the parameters are alive at every peak
  }
}

}  // namespace

TEST_CASE("what is alive at a plan's peak adds up to the peak, and the message names it by category") {
  const LoadedGraph loaded = load_graph_file(std::string(PT_TEST_DIR) + "/corpus/resnet18.pb", Format::Binary);
  const Settings s;
  const Partitioned p = partition_joint(loaded.graph, s);
  const Graph& g = p.prepared.graph;
  const Device device = parse_device("h100");
  const BandwidthAndPeak est = estimate_bandwidth_and_peak(g, p.result, s.op_classes, device, {}, PassDetail::Totals);
  const LiveAtPeak live = live_at_plan_peak(g, p.result, s, device, {});
  uint64_t sum = 0;
  for (uint64_t b : live.bytes) sum += b;
  CHECK(sum == est.memory.peak_bytes);
  CHECK(live.saved == saved_live_at_peak(g, p.result, s, device, {}));
  const std::string text = live_at_peak_text(g, live);
  // Every category alive is named, largest first, and the largest value too.
  REQUIRE(!live.values.empty());
  CHECK(text.find(std::string(g[live.values.front().node].name)) != std::string::npos);
  std::array<size_t, kMemoryCategoryCount> at{};
  for (size_t c = 0; c < kMemoryCategoryCount; ++c) {
    if (live.bytes[c] == 0) continue;
    at[c] = text.find(std::string(memory_category_name(static_cast<MemoryCategory>(c))) + " ");
    CHECK(at[c] != std::string::npos);
  }
  for (size_t a = 0; a < kMemoryCategoryCount; ++a) {
    for (size_t b = 0; b < kMemoryCategoryCount; ++b) {
      if (live.bytes[b] > 0 && live.bytes[a] > live.bytes[b]) CHECK(at[a] < at[b]);
    }
  }
}

// The sanitizer build (about ten times slower) runs the bar on resnet18
// alone and the other cases on the 2-layer GPT: the same code as the GPT
// bars on graphs a tenth of their size (the normal suite runs them all).
#ifdef PT_UNDER_SANITIZER
constexpr bool kSkipLargeBars = true;
constexpr const char* kTransformer = "gpt2_dropout_l2.pb";
#else
constexpr bool kSkipLargeBars = false;
constexpr const char* kTransformer = "gpt2_124m.pb";
#endif
// gpt2_124m: every limit from 50% of the default peak fits (the block
// checkpoints reach 49%, without the exact plan). resnet18: from 70%; the
// backward of its stem holds the stem's recomputed activations and their
// gradients. gpt2_l24 (a small batch): the parameters and their gradients
// are the peak, and no plan lowers it.
TEST_CASE("memory limit bar on gpt2_124m" * doctest::skip(kSkipLargeBars)) {
  check_bar(plan_corpus("gpt2_124m.pb"), 50);
}
TEST_CASE("memory limit bar on resnet18") { check_bar(plan_corpus("resnet18.pb"), 70); }
TEST_CASE("memory limit bar on gpt2_l24" * doctest::skip(kSkipLargeBars)) {
  check_bar(plan_corpus("scale/gpt2_l24.pb"), 100);
}

// A tuple is never saved whole: the forward outputs its items. The
// per-value search must stop at the items of a tuple whose op may not be
// recomputed (llama_gqa's cuDNN attention is seeded), never at the tuple,
// which the bridge cannot apply.
// Llama's graph (cuDNN attention, a seeded tuple) is planned in the normal
// suite; under the sanitizers the two graphs planned above cover the code.
#ifdef PT_UNDER_SANITIZER
constexpr const char* kTupleGraphs[] = {kTransformer, "resnet18.pb"};
#else
constexpr const char* kTupleGraphs[] = {kTransformer, "gpt2_dropout_l2.pb", "resnet18.pb", "../plan/graphs/llama_gqa.pb"};
#endif
TEST_CASE("no candidate saves a tuple-valued node") {
  for (const char* name : kTupleGraphs) {
    CAPTURE(name);
    const Planned& p = plan_corpus(name);
    const Graph& g = p.prepared.graph;
    for (const PlanCandidate& c : p.candidates.all) {
      CAPTURE(c.description());
      for (NodeId id : c.saved) CHECK_MESSAGE(g[id].value_kind != ValueKind::Tuple, g[id].name);
    }
  }
}

TEST_CASE("the chosen plan's prediction is the report's") {
  const Planned& p = plan_corpus(kTransformer);
  const Settings base;
  // Halfway between the smallest reachable peak and the default's: a limit
  // that binds and that a plan fits.
  const uint64_t floor = p.candidates.all[p.candidates.lowest_peak].peak_bytes;
  const uint64_t limit = floor + (p.candidates.all.front().peak_bytes - floor) / 2;
  const MemoryPlan plan = choose_plan(p.candidates, MemoryLimit{limit});
  const Settings s = plan_settings(base, plan.chosen);
  const PartitionResult r = partition_plan(p.prepared.graph, base, plan.chosen);
  const BandwidthAndPeak both = estimate_bandwidth_and_peak(p.prepared.graph, r, s.op_classes, parse_device("h100"));
  CHECK(both.memory.peak_bytes == plan.chosen.peak_bytes);
  CHECK(both.bandwidth.forward.seconds + both.bandwidth.backward.seconds == pt::test::relative(plan.chosen.step_seconds));
}

}  // namespace pt
