#include "plan/linear_plan_model.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "analysis/node_op_classes.h"
#include "analysis/runtime_estimate.h"
#include "estimate/bandwidth_model.h"
#include "estimate/memory_timeline.h"
#include "graph/dtype.h"
#include "plan/recomputable_values.h"

namespace pt {

namespace {

// At most this many peak rows: each row of a saved-value sum has up to one
// coefficient per decision value, and GLPK's branch and bound slows with
// the matrix. The full model checks every plan, so a row left out costs a
// retry (plan/exact_plan.cpp), not a wrong answer.
constexpr size_t kMaxSteps = 256;

bool is_convolution(const Node& n) {
  return n.packet == "aten.convolution" || n.packet == "aten._convolution" || n.packet == "aten.cudnn_convolution";
}

// The decision values (linear_plan_model.h): what the backward's own nodes
// read of the forward, and their forward ancestors.
void find_values(const Graph& g, const PartitionResult& ref, const Flags& own, LinearPlanModel& m) {
  const Flags& fw = ref.classification.required_fw;
  auto decision = [&](NodeId id) {
    return fw[id] && g[id].op == OpKind::CallFunction && g[id].value_kind != ValueKind::Sym;
  };
  Flags in(g.size(), false), read(g.size(), false);
  std::vector<NodeId> work;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!own[id]) continue;
    for (NodeId u : g[id].inputs) {
      if (!decision(u)) continue;
      read[u] = true;
      if (!in[u]) work.push_back(u);
      in[u] = true;
    }
  }
  while (!work.empty()) {
    const NodeId v = work.back();
    work.pop_back();
    for (NodeId u : g[v].inputs) {
      if (decision(u) && !in[u]) {
        in[u] = true;
        work.push_back(u);
      }
    }
  }
  m.index.assign(g.size(), -1);
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!in[id]) continue;
    m.index[id] = static_cast<int32_t>(m.values.size());
    m.values.push_back(id);
    m.needed.push_back(read[id] ? 1 : 0);
  }
}

void find_costs(const Graph& g, const PartitionResult& ref, const Settings& s, const Device& device,
                const BandwidthOptions& o, LinearPlanModel& m) {
  const NodeOpClasses ops = ref.node_ops ? *ref.node_ops : NodeOpClasses(g, s.op_classes);
  const Flags recomputable = recomputable_values(g, ref, s);
  const bool eff = o.apply_device_efficiency;
  const double bandwidth = device.bytes_per_second * (eff ? device.memory_efficiency : 1);
  static const uint8_t kFloat32 = dtype_code("float32");
  for (size_t i = 0; i < m.values.size(); ++i) {
    const NodeId v = m.values[i];
    const Node& n = g[v];
    // A view of a graph input holds no memory of its own.
    NodeId root = v;
    while (ops.is_view(root) && !g[root].inputs.empty()) root = g[root].inputs[0];
    const uint64_t bytes = g[root].op == OpKind::Placeholder ? 0 : n.size_bytes;
    m.bytes.push_back(bytes);
    m.may_recompute.push_back(recomputable[v] ? 1 : 0);
    std::vector<int32_t> inputs;
    for (NodeId u : n.inputs) {
      if (m.index[u] >= 0 && std::find(inputs.begin(), inputs.end(), m.index[u]) == inputs.end()) {
        inputs.push_back(m.index[u]);
      }
    }
    m.inputs.push_back(std::move(inputs));
    const bool fusible = ops.is_fusible_op(v) || ops.is_view(v);
    m.save_seconds.push_back(static_cast<double>(bytes) * (fusible ? 2 : 1) / bandwidth);
    double seconds = 0;
    if (ops.is_compute_intensive(v)) {
      const double rate = (n.dtype == kFloat32 ? device.fp32_flops_per_second : device.flops_per_second) *
                          (eff ? (is_convolution(n) ? device.conv_efficiency : device.matmul_efficiency) : 1);
      seconds = static_cast<double>(count_flops_if_readable(g, v)) / rate;
    }
    if (!fusible) {
      uint64_t moved = n.size_bytes;
      for (NodeId u : n.inputs) moved += g[u].size_bytes;
      seconds = std::max(seconds, static_cast<double>(moved) / bandwidth);
    }
    m.recompute_seconds.push_back(seconds);
  }
}

// The steps of the reference plan's run with their baselines and the
// decision values alive at each (linear_plan_model.h).
// Returns the reference plan's simulated peak.
uint64_t find_steps(const Graph& g, const PartitionResult& ref, const Settings& s, const Device& device,
                    const BandwidthOptions& o, const Flags& own, LinearPlanModel& m) {
  MemoryTimeline t;
  const uint64_t peak = estimate_bandwidth_and_peak(g, ref, s.op_classes, device, o, PassDetail::Totals, &t).memory.peak_bytes;
  const size_t n = t.steps.size();
  std::vector<int64_t> delta(n + 1, 0);
  for (const ValueLifetime& l : t.lifetimes) {
    if (l.node == kNoNode || m.index[l.node] < 0) continue;
    const bool backward_recomputation = static_cast<size_t>(l.first) >= t.backward_from;
    if (l.category != MemoryCategory::Saved && !backward_recomputation) continue;
    const size_t last = l.last == ValueLifetime::kStillLive ? n - 1 : std::min(static_cast<size_t>(l.last), n - 1);
    delta[static_cast<size_t>(l.first)] -= static_cast<int64_t>(l.bytes);
    delta[last + 1] += static_cast<int64_t>(l.bytes);
  }
  const std::vector<CategoryBytes> by_step = bytes_by_step(t);
  std::vector<uint64_t> baseline(n);
  int64_t removed = 0;
  for (size_t i = 0; i < n; ++i) {
    removed += delta[i];
    const int64_t live = static_cast<int64_t>(total_bytes(by_step[i])) + removed;
    baseline[i] = live > 0 ? static_cast<uint64_t>(live) : 0;
  }

  // Forward: a saved value is alive from the step that computes it (the
  // forward runs in graph order) to the end. The live sets grow, so a step
  // no later step's baseline reaches is a step that can be a peak.
  const size_t values = m.values.size();
  std::vector<size_t> computed_at(values);
  {
    size_t at = 0;
    for (size_t i = 0; i < values; ++i) {
      while (at + 1 < t.backward_from && t.steps[at] < m.values[i]) ++at;
      computed_at[i] = at;
    }
  }
  std::vector<LinearStep> forward;
  uint64_t later = 0;
  for (size_t i = t.backward_from; i-- > 0;) {
    if (baseline[i] <= later && !forward.empty()) continue;
    later = std::max(later, baseline[i]);
    LinearStep step{baseline[i], {}, {}, t.steps[i]};
    for (size_t v = 0; v < values; ++v) {
      if (computed_at[v] <= i && m.bytes[v] > 0) step.saved_live.push_back(static_cast<int32_t>(v));
    }
    forward.push_back(std::move(step));
  }

  // Backward: positions among the backward's own nodes (the reference's
  // recomputations run just before their readers). A saved value is alive
  // until the last own node that reads it or a value computed from it; a
  // recomputed one from the first such node to the last. "Computed from
  // it" reaches two values deep: the whole closure would run through the
  // values a plan saves, from the first layer to the last, and keep every
  // recomputed value alive through the whole backward.
  std::vector<int32_t> position(g.size(), -1);
  std::vector<size_t> own_steps;
  for (size_t i = t.backward_from; i < n; ++i) {
    if (!own[t.steps[i]] || position[t.steps[i]] >= 0) continue;
    position[t.steps[i]] = static_cast<int32_t>(own_steps.size());
    own_steps.push_back(i);
  }
  std::vector<int32_t> first(values, std::numeric_limits<int32_t>::max()), last(values, -1);
  for (int depth = 0; depth < 3; ++depth) {
    std::vector<int32_t> deeper_first = first, deeper_last = last;
    for (size_t v = 0; v < values; ++v) {
      for (NodeId u : g.users[m.values[v]]) {
        if (position[u] >= 0) {
          deeper_first[v] = std::min(deeper_first[v], position[u]);
          deeper_last[v] = std::max(deeper_last[v], position[u]);
        } else if (m.index[u] >= 0) {
          deeper_first[v] = std::min(deeper_first[v], first[static_cast<size_t>(m.index[u])]);
          deeper_last[v] = std::max(deeper_last[v], last[static_cast<size_t>(m.index[u])]);
        }
      }
    }
    first = std::move(deeper_first);
    last = std::move(deeper_last);
  }
  // The saved live sets shrink step by step: keep the steps whose baseline
  // is above every earlier one, and those where the baseline with every
  // value that may be recomputed there is.
  std::vector<LinearStep> backward;
  uint64_t earlier = 0, earlier_with_recomputed = 0;
  for (size_t p = 0; p < own_steps.size(); ++p) {
    const uint64_t base = baseline[own_steps[p]];
    LinearStep step{base, {}, {}, t.steps[own_steps[p]]};
    uint64_t recomputable_bytes = 0;
    for (size_t v = 0; v < values; ++v) {
      if (m.bytes[v] == 0 || last[v] < static_cast<int32_t>(p)) continue;
      step.saved_live.push_back(static_cast<int32_t>(v));
      if (m.may_recompute[v] && first[v] <= static_cast<int32_t>(p)) {
        step.recomputed_live.push_back(static_cast<int32_t>(v));
        recomputable_bytes += m.bytes[v];
      }
    }
    const bool keep = base > earlier || base + recomputable_bytes > earlier_with_recomputed || backward.empty();
    earlier = std::max(earlier, base);
    earlier_with_recomputed = std::max(earlier_with_recomputed, base + recomputable_bytes);
    if (keep) backward.push_back(std::move(step));
  }
  m.steps = std::move(forward);
  m.steps.insert(m.steps.end(), std::make_move_iterator(backward.begin()), std::make_move_iterator(backward.end()));
  if (m.steps.size() > kMaxSteps) {
    // The steps with the most that could be live at them.
    auto most = [&](const LinearStep& a) {
      uint64_t b = a.baseline;
      for (int32_t v : a.saved_live) b += m.bytes[static_cast<size_t>(v)];
      return b;
    };
    std::stable_sort(m.steps.begin(), m.steps.end(),
                     [&](const LinearStep& a, const LinearStep& b) { return most(a) > most(b); });
    m.steps.resize(kMaxSteps);
  }
  return peak;
}

}  // namespace

LinearPlanModel build_linear_model(const Graph& prepared, const PartitionResult& ref, const Settings& s,
                                   const Device& device, const BandwidthOptions& o) {
  const Graph& g = prepared;
  const Extraction& e = ref.extraction;
  LinearPlanModel m;
  m.saved_symbols = e.saved_sym_nodes;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].op == OpKind::Placeholder && ref.classification.required_fw[id]) m.graph_inputs.push_back(id);
  }
  Flags own(g.size(), false);
  for (NodeId id = 0; id < g.size(); ++id) {
    own[id] = e.backward.keep[id] && !e.backward.is_input[id] && !ref.classification.required_fw[id];
  }
  find_values(g, ref, own, m);
  find_costs(g, ref, s, device, o, m);
  const uint64_t simulated = find_steps(g, ref, s, device, o, own, m);
  // The model counts some bytes twice that the simulation shares (a saved
  // view and its base, a fused value stored in place): lower every
  // baseline by the reference plan's excess, so that the reference plan's
  // linear peak is its simulated one and a limit the reference plan fits
  // is not infeasible for the ILP.
  const uint64_t linear = linear_peak(m, linear_choice(m, ref));
  if (linear > simulated) {
    for (LinearStep& step : m.steps) step.baseline -= std::min(step.baseline, linear - simulated);
  }
  return m;
}

LinearChoice linear_choice(const LinearPlanModel& m, const PartitionResult& plan) {
  LinearChoice c;
  c.saved.assign(m.values.size(), 0);
  c.recomputed.assign(m.values.size(), 0);
  for (NodeId id : plan.extraction.saved_values) {
    if (m.index[id] >= 0) c.saved[static_cast<size_t>(m.index[id])] = 1;
  }
  for (NodeId id : plan.extraction.recomputed) {
    if (m.index[id] >= 0) c.recomputed[static_cast<size_t>(m.index[id])] = 1;
  }
  return c;
}

double linear_seconds(const LinearPlanModel& m, const LinearChoice& c) {
  double seconds = 0;
  for (size_t v = 0; v < m.values.size(); ++v) {
    if (c.saved[v]) seconds += m.save_seconds[v];
    if (c.recomputed[v]) seconds += m.recompute_seconds[v];
  }
  return seconds;
}

uint64_t linear_peak(const LinearPlanModel& m, const LinearChoice& c) {
  uint64_t peak = 0;
  for (const LinearStep& step : m.steps) {
    uint64_t live = step.baseline;
    for (int32_t v : step.saved_live) live += c.saved[static_cast<size_t>(v)] ? m.bytes[static_cast<size_t>(v)] : 0;
    for (int32_t v : step.recomputed_live) {
      live += c.recomputed[static_cast<size_t>(v)] ? m.bytes[static_cast<size_t>(v)] : 0;
    }
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace pt
