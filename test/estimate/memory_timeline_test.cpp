#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "estimate/memory_timeline.h"
#include "estimate/peak_memory.h"
#include "graph/graph_io.h"
#include "partition/partitioner.h"
#include "pipeline/pipeline.h"
#include "prepare/prepare.h"
#include "estimate/chain_graph.h"
#include "prepare/text_graph.h"
#include "estimate/bandwidth_model.h"
#include "report/report_model.h"

using namespace pt;

namespace {

// The shared chain (estimate/chain_graph.h).
const char* kChain = test::kChainGraph;

uint64_t sum_bytes(const std::vector<LiveValue>& live) {
  return std::accumulate(live.begin(), live.end(), uint64_t{0},
                         [](uint64_t s, const LiveValue& v) { return s + v.bytes; });
}

uint64_t highest_step(const Graph& g, const MemoryTimeline& t) {
  uint64_t top = 0;
  for (const CategoryBytes& b : bytes_by_step(t)) top = std::max(top, total_bytes(b));
  return top;
}

const LiveValue* find_live(const Graph& g, const std::vector<LiveValue>& live, std::string_view name) {
  const auto it = std::find_if(live.begin(), live.end(), [&](const LiveValue& v) { return g[v.node].name == name; });
  return it == live.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("the live set at the peak names each value, its category and why it is alive") {
  const Settings s;
  const PrepareResult p = prepare(test::graph_from_text(kChain), s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  MemoryTimeline t;
  const PeakMemory m = simulate_peak_memory(g, r.classification, r.extraction, s.op_classes, {}, &t);
  // The plain call gives the same result.
  CHECK(m == simulate_peak_memory(g, r.classification, r.extraction, s.op_classes));
  REQUIRE(m.peak_bytes == 68);  // the backward recomputes a then b (peak_memory_test.cpp)
  REQUIRE(t.peak_step < t.steps.size());
  CHECK(g[t.steps[t.peak_step]].name == "b");
  CHECK(t.peak_step >= t.backward_from);

  const std::vector<LiveValue> live = live_at_peak(g, t);
  CHECK(sum_bytes(live) == m.peak_bytes);
  CHECK(highest_step(g, t) == m.peak_bytes);
  // x (input), loss (forward output), tangents_1, a (recomputed, read by
  // b) and b (allocated by the running node).
  REQUIRE(live.size() == 5);
  const LiveValue* x = find_live(g, live, "x");
  const LiveValue* loss = find_live(g, live, "loss");
  const LiveValue* tangent = find_live(g, live, "tangents_1");
  const LiveValue* a = find_live(g, live, "a");
  const LiveValue* b = find_live(g, live, "b");
  REQUIRE((x && loss && tangent && a && b));
  CHECK(x->category == MemoryCategory::Input);
  CHECK(x->reason == LiveReason::Input);
  CHECK(loss->reason == LiveReason::ForwardOutput);
  CHECK(tangent->category == MemoryCategory::Input);
  CHECK(tangent->reason == LiveReason::Tangent);
  CHECK(a->category == MemoryCategory::Temporary);
  CHECK(a->reason == LiveReason::AwaitingReader);
  CHECK(g[a->reader].name == "b");
  CHECK(b->reason == LiveReason::RunningKernel);
  CHECK(live_reason_text(a->reason, g[a->reader].name) == "temporary, read last by b");
  // Largest first, then by node.
  CHECK(std::is_sorted(live.begin(), live.end(), [](const LiveValue& l, const LiveValue& r) {
    return l.bytes > r.bytes || (l.bytes == r.bytes && l.node < r.node);
  }));
}

TEST_CASE("a saved value is saved in both passes and ends at its last backward reader") {
  Settings s;
  s.set("recomputable_ops.remove", "aten.relu");  // b is banned and saved
  const PrepareResult p = prepare(test::graph_from_text(kChain), s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  MemoryTimeline t;
  const PeakMemory m = simulate_peak_memory(g, r.classification, r.extraction, s.op_classes, {}, &t);
  REQUIRE(m.peak_at == "grad_x");
  const std::vector<LiveValue> live = live_at_peak(g, t);
  CHECK(sum_bytes(live) == m.peak_bytes);
  const LiveValue* b = find_live(g, live, "b");
  REQUIRE(b);
  CHECK(b->category == MemoryCategory::Saved);
  CHECK(b->reason == LiveReason::Saved);
  CHECK(g[b->reader].name == "grad_x");
  const LiveValue* grad = find_live(g, live, "grad_x");
  REQUIRE(grad);
  CHECK(grad->category == MemoryCategory::Gradient);
  // In the forward, b is saved from the step that computes it.
  const auto b_step = static_cast<size_t>(std::find_if(t.steps.begin(), t.steps.end(), [&](NodeId id) {
                                            return g[id].name == "b";
                                          }) - t.steps.begin());
  REQUIRE(b_step < t.backward_from);
  CHECK(find_live(g, live_at(g, t, b_step), "b")->category == MemoryCategory::Saved);
}

TEST_CASE("the curve keeps the peak exactly and stays within its points") {
  const Settings s;
  const PrepareResult p = prepare(test::graph_from_text(kChain), s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  MemoryTimeline t;
  const PeakMemory m = simulate_peak_memory(g, r.classification, r.extraction, s.op_classes, {}, &t);
  for (size_t points : {1, 2, 3, 100}) {
    const std::vector<MemoryPoint> curve = memory_curve(g, t, points, 2);
    CHECK(curve.size() <= std::max<size_t>(points, 2));
    uint64_t top = 0;
    for (const auto& q : curve) {
      top = std::max(top, total_bytes(q.bytes));
      CHECK(q.largest.size() <= 2);
      for (const auto& v : q.largest) CHECK(find_live(g, live_at(g, t, q.step), g[v.node].name));
    }
    CHECK(top == m.peak_bytes);
  }
}

// Through the report's path (the fused masks of the bandwidth model, the
// forward and backward halves on two threads): the live set at the peak
// sums to memory.peak_bytes and the timeline's highest step equals it.
TEST_CASE("on the corpus the live set and the timeline agree with memory.peak_bytes") {
  for (const char* name : {"linear_ce", "gpt2_124m", "resnet18", "gpt2_dropout_l2", "mlp_dynamic", "sac_mlp"}) {
    CAPTURE(name);
    const LoadedGraph loaded = load_graph_file(std::string(PT_TEST_DIR) + "/corpus/" + name + ".pb", Format::Binary);
    const Settings s;
    const Partitioned part = partition_joint(loaded.graph, s);
    const ReportModel report = build_report({loaded.graph, part, s, parse_device("h100"), {}, {}, true});
    REQUIRE(report.memory);
    const uint64_t live = std::accumulate(report.live_at_peak.begin(), report.live_at_peak.end(), uint64_t{0},
                                          [](uint64_t sum, const LiveRow& row) { return sum + row.bytes; });
    CHECK(live == report.memory->peak_bytes);
    REQUIRE(report.memory_plot);
    const MemoryPlotSeries& plot = *report.memory_plot;
    uint64_t top = 0;
    for (const auto& q : plot.points) top = std::max(top, total_bytes(q.bytes));
    CHECK(top == report.memory->peak_bytes);
    CHECK(total_bytes(plot.points[plot.peak_point].bytes) == report.memory->peak_bytes);
    CHECK(plot.points[plot.peak_point].node == report.memory->peak_at);
    CHECK(plot.points.size() <= kMemoryPlotPoints);

    // The same masks and halves, with the whole timeline.
    const Graph& g = part.prepared.graph;
    MemoryTimeline t;
    const BandwidthAndPeak traffic = estimate_bandwidth_and_peak(g, part.result, s.op_classes, parse_device("h100"),
                                                                 {}, PassDetail::Totals, &t);
    CHECK(traffic.memory == *report.memory);
    CHECK(highest_step(g, t) == traffic.memory.peak_bytes);
    CHECK(sum_bytes(live_at_peak(g, t)) == traffic.memory.peak_bytes);
    CHECK(g[t.steps[t.peak_step]].name == traffic.memory.peak_at);
  }
}

TEST_CASE("a freed buffer held for the next one of its size shows as held for reuse") {
  // Forward: e (64 B) dies at s0, then a (16 B) at s1, then d (bfloat16,
  // 8 B) at s2; t, of a's size and dtype, takes a's buffer. Inductor's
  // estimate peaks at e (84 B); holding a over d's steps stays below it.
  const std::string f4 = R"(val { tensor { shape: [4] stride: [1] dtype: "float32" device: "cpu" } })";
  const std::string f16 = R"(val { tensor { shape: [16] stride: [1] dtype: "float32" device: "cpu" } })";
  const std::string scalar = R"(val { tensor { dtype: "float32" device: "cpu" } })";
  const Settings s;
  const PrepareResult p = prepare(test::graph_from_text(R"(
num_fwd_outputs: 1
nodes { name: "x" op: "placeholder" target: "x" )" + f4 + R"( }
nodes { name: "e" op: "call_function" target: "aten.exp.default" args { node: "x" } )" + f16 + R"( op_tags: "pointwise" }
nodes { name: "s0" op: "call_function" target: "aten.sum.default" args { node: "e" } )" + scalar + R"( op_tags: "reduction" }
nodes { name: "a" op: "call_function" target: "aten.relu.default" args { node: "x" } )" + f4 + R"( op_tags: "pointwise" }
nodes { name: "s1" op: "call_function" target: "aten.sum.default" args { node: "a" } )" + scalar + R"( op_tags: "reduction" }
nodes { name: "d" op: "call_function" target: "prims.convert_element_type.default" args { node: "x" } args { dtype: "bfloat16" }
        val { tensor { shape: [4] stride: [1] dtype: "bfloat16" device: "cpu" } } op_tags: "pointwise" }
nodes { name: "s2" op: "call_function" target: "aten.sum.default" args { node: "d" } )" + scalar + R"( op_tags: "reduction" }
nodes { name: "t" op: "call_function" target: "aten.neg.default" args { node: "x" } )" + f4 + R"( op_tags: "pointwise" }
nodes { name: "s3" op: "call_function" target: "aten.sum.default" args { node: "t" } )" + scalar + R"( op_tags: "reduction" }
nodes { name: "u" op: "call_function" target: "aten.add.Tensor" args { node: "s0" } args { node: "s1" } )" + scalar +
                                                           R"( op_tags: "pointwise" }
nodes { name: "v" op: "call_function" target: "aten.add.Tensor" args { node: "s2" } args { node: "s3" } )" + scalar +
                                                           R"( op_tags: "pointwise" }
nodes { name: "loss" op: "call_function" target: "aten.add.Tensor" args { node: "u" } args { node: "v" } )" + scalar +
                                                           R"( op_tags: "pointwise" }
nodes { name: "output" op: "output" target: "output" args { list { items { node: "loss" } } } }
)"),
                                  s);
  const Graph& g = p.graph;
  const PartitionResult r = partition_graph(g, s);
  Materialized m{Flags(static_cast<size_t>(g.size()), true), Flags(static_cast<size_t>(g.size()), true)};
  m.write_in_place = false;
  m.reuse_freed_buffers = true;
  MemoryTimeline t;
  const PeakMemory peak = simulate_peak_memory(g, r.classification, r.extraction, s.op_classes, m, &t);
  size_t at_d = t.steps.size();
  for (size_t step = 0; step < t.backward_from; ++step) {
    if (g[t.steps[step]].name == "d") at_d = step;
  }
  REQUIRE(at_d < t.backward_from);
  const std::vector<LiveValue> live = live_at(g, t, at_d);
  const LiveValue* a = find_live(g, live, "a");
  REQUIRE(a);
  CHECK(a->reason == LiveReason::HeldForReuse);
  CHECK(g[a->reader].name == "t");
  CHECK(live_reason_code(a->reason) == "held_for_reuse");
  CHECK(live_reason_text(a->reason, "t") == "freed, held for the next buffer of its size and dtype, which t takes");
  CHECK(sum_bytes(live) == total_bytes(bytes_by_step(t)[at_d]));
  CHECK(highest_step(g, t) == peak.peak_bytes);
  // Without the rule a is freed where it dies.
  m.reuse_freed_buffers = false;
  MemoryTimeline without;
  simulate_peak_memory(g, r.classification, r.extraction, s.op_classes, m, &without);
  CHECK_FALSE(find_live(g, live_at(g, without, at_d), "a"));
}
