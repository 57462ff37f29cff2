// The exact plan: the ILP against enumeration of every save/recompute
// choice of its linear model on a small chain; the certificate; and the
// gap between the ILP's plan, the per-value search and the best knob on
// the corpus (printed: docs/design.md's table).
#include <doctest/doctest.h>

#include <cstdio>
#include <limits>
#include <string>

#include "graph/errors.h"
#include "graph/graph_io.h"
#include "pipeline/pipeline.h"
#include "partition/partitioner.h"
#include "plan/exact_candidate.h"
#include "plan/exact_plan.h"
#include "plan/linear_plan_model.h"
#include "plan/memory_limit_plan.h"
#include "prepare/prepare.h"
#include "prepare/text_graph.h"

using namespace pt;

namespace {

// x -> a1 -> ... -> a8 -> loss = sum(a8); the backward reads every a_i:
// g_1 = tangents_1 * a8, g_k = g_{k-1} * a_{9-k}. Odd a_i are relu
// (fusible: free to recompute), even ones cumsum (not fusible: costly).
std::string chain_text(int n) {
  std::string text = "num_fwd_outputs: 1\n$P(x)\n$P(tangents_1)\n";
  std::string prev = "x";
  for (int i = 1; i <= n; ++i) {
    const std::string name = "a" + std::to_string(i);
    if (i % 2 == 1) {
      text += "nodes { name: \"" + name + "\" op: \"call_function\" target: \"aten.relu.default\" args { node: \"" +
              prev + "\" } $T op_tags: \"pointwise\" }\n";
    } else {
      text += "nodes { name: \"" + name + "\" op: \"call_function\" target: \"aten.cumsum.default\" args { node: \"" +
              prev + "\" } args { int: 0 } $T }\n";
    }
    prev = name;
  }
  text += "nodes { name: \"loss\" op: \"call_function\" target: \"aten.sum.default\" args { node: \"" + prev +
          "\" } val { tensor { dtype: \"float32\" device: \"cpu\" } } op_tags: \"reduction\" }\n";
  std::string grad = "tangents_1";
  for (int k = 1; k <= n; ++k) {
    const std::string name = "g" + std::to_string(k);
    text += "nodes { name: \"" + name + "\" op: \"call_function\" target: \"aten.mul.Tensor\" args { node: \"" + grad +
            "\" } args { node: \"a" + std::to_string(n + 1 - k) + "\" } $T op_tags: \"pointwise\" }\n";
    grad = name;
  }
  text += "nodes { name: \"output\" op: \"output\" target: \"output\" args { list { items { node: \"loss\" } items { "
          "node: \"" + grad + "\" } } } }\n";
  return text;
}

// The least linear seconds of any choice that the ILP's rows allow, by
// enumeration of every (save, recompute) pair of sets.
double brute_force(const LinearPlanModel& m, uint64_t limit) {
  const size_t n = m.values.size();
  double best = std::numeric_limits<double>::infinity();
  for (uint32_t saves = 0; saves < (1u << n); ++saves) {
    for (uint32_t recomputes = 0; recomputes < (1u << n); ++recomputes) {
      if ((saves & recomputes) != 0) continue;
      LinearChoice c;
      c.saved.assign(n, 0);
      c.recomputed.assign(n, 0);
      bool ok = true;
      for (size_t v = 0; v < n; ++v) {
        c.saved[v] = (saves >> v) & 1;
        c.recomputed[v] = (recomputes >> v) & 1;
        if (c.recomputed[v] && !m.may_recompute[v]) ok = false;
        if (m.needed[v] && !c.saved[v] && !c.recomputed[v]) ok = false;
      }
      for (size_t v = 0; ok && v < n; ++v) {
        if (!c.recomputed[v]) continue;
        for (int32_t u : m.inputs[v]) ok = ok && (c.saved[static_cast<size_t>(u)] || c.recomputed[static_cast<size_t>(u)]);
      }
      if (!ok || linear_peak(m, c) > limit) continue;
      best = std::min(best, linear_seconds(m, c));
    }
  }
  return best;
}

struct Small {
  PrepareResult prepared;
  PartitionResult reference;
  LinearPlanModel model;
};

Small small_chain(int n, const Settings& s) {
  Small out{prepare(test::graph_from_text(chain_text(n)), s), {}, {}};
  out.reference = partition_graph(out.prepared.graph, s);
  out.model = build_linear_model(out.prepared.graph, out.reference, s, parse_device("h100"), {});
  return out;
}

}  // namespace

TEST_CASE("the ILP's optimum is the least cost of every choice that fits, on chains") {
  for (int n : {6, 8}) {
    CAPTURE(n);
    const Settings s;
    const Small c = small_chain(n, s);
    REQUIRE(c.model.values.size() == static_cast<size_t>(n));
    REQUIRE(!c.model.steps.empty());
    // From below the least reachable peak to above the most.
    uint64_t low = std::numeric_limits<uint64_t>::max(), high = 0;
    for (const LinearStep& step : c.model.steps) {
      low = std::min(low, step.baseline);
      uint64_t most = step.baseline;
      for (int32_t v : step.saved_live) most += 2 * c.model.bytes[static_cast<size_t>(v)];
      high = std::max(high, most);
    }
    int feasible = 0, infeasible = 0;
    for (uint64_t limit = low; limit <= high + 16; limit += 4) {
      CAPTURE(limit);
      const double expected = brute_force(c.model, limit);
      const ExactSolution sol = solve_exact(c.model, limit, 10);
      if (expected == std::numeric_limits<double>::infinity()) {
        CHECK(sol.status == ExactStatus::Infeasible);
        ++infeasible;
        continue;
      }
      REQUIRE(sol.status == ExactStatus::Optimal);
      CHECK(sol.objective == doctest::Approx(expected).epsilon(1e-9));
      ++feasible;
    }
    // The limits cover both sides, and the cost falls as the limit grows.
    CHECK(feasible > 0);
    CHECK(infeasible > 0);
  }
}

TEST_CASE("the exact plan recomputes no value that may not be recomputed") {
  Settings s;
  const Small c = small_chain(6, s);
  const ExactCandidate e = exact_candidate(c.prepared.graph, c.reference, s, c.model,
                                           std::numeric_limits<uint64_t>::max() / 2, parse_device("h100"), {});
  REQUIRE(e.plan.error.empty());
  CHECK(e.plan.family == PlanFamily::Exact);
  const PartitionResult r = partition_plan(c.prepared.graph, s, e.plan);
  for (NodeId id : r.extraction.recomputed) CHECK(c.model.may_recompute[static_cast<size_t>(c.model.index[id])]);
}

TEST_CASE("proven optimal on a small chain; not when the ILP is off") {
  Settings s;
  const PrepareResult p = prepare(test::graph_from_text(chain_text(6)), s);
  const Device device = parse_device("h100");
  const PlanCandidates candidates = plan_candidates(p.graph, s, device, {});
  REQUIRE(candidates.linear);
  CHECK(candidates.exact_count > 0);
  MemoryPlan plan = choose_plan(candidates, candidates.all.front().peak_bytes);
  certify_plan(plan, candidates, p.graph, s, device, {});
  INFO(plan.optimality);
  CHECK(plan.proven_optimal);
  CHECK(plan.optimality.find("proven optimal under the linear model") != std::string::npos);

  s.set("memory_limit_ilp_time_limit", "0");
  const PlanCandidates without = plan_candidates(p.graph, s, device, {});
  CHECK(!without.linear);
  CHECK(without.exact_count == 0);
  MemoryPlan off = choose_plan(without, without.all.front().peak_bytes);
  certify_plan(off, without, p.graph, s, device, {});
  CHECK(!off.proven_optimal);
  CHECK(off.optimality.find("memory_limit_ilp_time_limit is 0") != std::string::npos);
}

TEST_CASE("exact plan gap on the corpus") {
  // The ILP's own plan at each limit (not a candidate: plan/memory_limit_plan.h
  // says why) against the per-value search's best and the best knob; the
  // planner's choice is never slower than any of the candidates that fit.
  const Device device = parse_device("h100");
  std::printf("| graph | limit | exact (ILP at the limit) | per-value search | best knob | chosen | ILP status |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---|\n");
  for (const char* name : {"gpt2_124m", "resnet18", "gpt2_dropout_l2", "sac_mlp", "mlp_dynamic", "linear_ce"}) {
    const Settings s;
    const LoadedGraph loaded = load_graph_file(std::string(PT_TEST_DIR) + "/corpus/" + name + ".pb", Format::Binary);
    const PrepareResult p = prepare(loaded.graph, s);
    const PlanCandidates candidates = plan_candidates(p.graph, s, device, {});
    REQUIRE(candidates.linear);
    const PartitionResult lent = partition_graph(p.graph, s);
    const uint64_t peak = candidates.all.front().peak_bytes;
    for (int percent : {60, 70, 80, 90}) {
      const uint64_t limit = peak * static_cast<uint64_t>(percent) / 100;
      auto best_of = [&](auto keep) {
        double best = std::numeric_limits<double>::infinity();
        for (const PlanCandidate& c : candidates.all) {
          if (keep(c) && c.fits(limit)) best = std::min(best, c.step_seconds);
        }
        return best;
      };
      const double search = best_of([](const PlanCandidate& c) { return c.family == PlanFamily::PerValueSearch; });
      const double knob = best_of([](const PlanCandidate& c) { return is_pytorch_knob(c.family); });
      const ExactCandidate exact = exact_candidate(p.graph, lent, s, *candidates.linear, limit, device, {});
      const double ilp = exact.plan.fits(limit) ? exact.plan.step_seconds : std::numeric_limits<double>::infinity();
      double chosen = std::numeric_limits<double>::infinity();
      try {
        chosen = choose_plan(candidates, limit).chosen.step_seconds;
      } catch (const InfeasibleError&) {
      }
      CHECK(chosen <= search);
      CHECK(chosen <= knob);
      auto ms = [](double seconds) {
        return seconds == std::numeric_limits<double>::infinity() ? std::string("no fit")
                                                                  : std::to_string(seconds * 1e3).substr(0, 6) + " ms";
      };
      std::printf("| %s | %d%% | %s | %s | %s | %s | %s (%.2f s) |\n", name, percent, ms(ilp).c_str(), ms(search).c_str(),
                  ms(knob).c_str(), ms(chosen).c_str(), exact_status_name(exact.solution.status), exact.solution.seconds);
    }
    std::printf("| %s | planner | %.2f s in all, %.2f s exact (%zu exact plans) | | | | |\n", name, candidates.seconds,
                candidates.exact_seconds, candidates.exact_count);
  }
}
