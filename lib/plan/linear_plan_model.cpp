#include "plan/linear_plan_model.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "analysis/node_op_classes.h"
#include "analysis/runtime_estimate.h"
#include "estimate/bandwidth_model.h"
#include "estimate/memory_timeline.h"
#include "graph/dtype.h"
#include "plan/peak_rows.h"
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

// A value recomputed in the backward: whether it must be stored there (an
// op no kernel fuses reads it, through views, directly in the backward or
// as a recomputed value: Inductor cannot fuse a pointwise value into the
// matmul that reads it), and how many kernels compute it fused: the
// reference plan's backward kernels among its own readers there, and one
// per fusible forward value that reads it (each a chain of its own).
struct BackwardReaders {
  bool stored = false;
  int kernels = 0;
};
BackwardReaders backward_readers(const Graph& g, const NodeOpClasses& ops, const Flags& own,
                                 const std::vector<int32_t>& kernel, const LinearPlanModel& m, NodeId v) {
  BackwardReaders out;
  std::vector<int32_t> seen;
  std::vector<NodeId> work(g.users[v].begin(), g.users[v].end());
  while (!work.empty()) {
    const NodeId u = work.back();
    work.pop_back();
    if (!own[u] && m.index[u] < 0) continue;
    if (ops.is_view(u)) {
      work.insert(work.end(), g.users[u].begin(), g.users[u].end());
      continue;
    }
    if (!ops.is_fusible_op(u)) out.stored = true;
    const int32_t k = own[u] && static_cast<size_t>(u) < kernel.size() ? kernel[u] : -1;
    if (k >= 0 && std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
    if (k >= 0) seen.push_back(k);
    ++out.kernels;
  }
  return out;
}

void find_costs(const Graph& g, const PartitionResult& ref, const Settings& s, const Device& device,
                const BandwidthOptions& o, const Flags& own, LinearPlanModel& m) {
  const NodeOpClasses ops = ref.node_ops ? *ref.node_ops : NodeOpClasses(g, s.op_classes);
  // The kernels step times are costed on (the peak simulation's differ).
  const std::vector<int32_t> kernel =
      estimate_bandwidth(g, ref, s.op_classes, device, costed_options(o), PassDetail::Totals).backward.kernel;
  Flags ref_recomputed(g.size(), false);
  for (NodeId id : ref.extraction.recomputed) ref_recomputed[id] = true;
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
    m.buffer.push_back(root);
    m.may_recompute.push_back(recomputable[v] ? 1 : 0);
    m.may_save.push_back(root != v && g[root].op == OpKind::Placeholder && recomputable[v] ? 0 : 1);
    std::vector<int32_t> inputs;
    for (NodeId u : n.inputs) {
      if (m.index[u] >= 0 && std::find(inputs.begin(), inputs.end(), m.index[u]) == inputs.end()) {
        inputs.push_back(m.index[u]);
      }
    }
    m.inputs.push_back(std::move(inputs));
    const bool fusible = ops.is_fusible_op(v) || ops.is_view(v);
    const BackwardReaders readers = backward_readers(g, ops, own, kernel, m, v);
    const bool stored = !ops.is_view(v) && (!fusible || readers.stored);
    m.recomputed_bytes.push_back(stored ? bytes : 0);
    m.save_seconds.push_back(static_cast<double>(bytes) * (fusible ? 2 : 1) / bandwidth);
    // A fusible op recomputed loads its inputs in each kernel that computes
    // it: once where it is stored (then written and read once more), else
    // in each kernel that reads it. Free recomputation made the exact plan
    // save gpt2_124m's residual projections and recompute the residual
    // stream, whose backward kernels then each load every projection
    // before them (4.2 GB more loads than the default plan).
    double seconds = 0;
    if (fusible && !ops.is_view(v)) {
      uint64_t inputs_bytes = 0;
      for (NodeId u : n.inputs) inputs_bytes += g[u].size_bytes;
      const double again = stored || ref_recomputed[v] ? 0 : std::max(0, readers.kernels - 1);
      seconds = (again * static_cast<double>(inputs_bytes) + (stored ? static_cast<double>(inputs_bytes + 2 * bytes) : 0)) /
                bandwidth;
    }
    if (ops.is_compute_intensive(v)) {
      const double rate = (n.dtype == kFloat32 ? device.fp32_flops_per_second : device.flops_per_second) *
                          (eff ? device.compute_rate_fraction(is_convolution(n), n.dtype == kFloat32) : 1);
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

// Per value, the first and last of the backward's own nodes (positions in
// the reference plan's order) that read it or a value computed from it.
// "Computed from it" reaches two values deep: the whole closure would run
// through the values a plan saves, from the first layer to the last, and
// keep every recomputed value alive through the whole backward. A value no
// own node reads within that depth is read (saved) by a longer chain that a
// plan recomputes: for it the search goes on until it finds a reader; such
// a value, saved, stayed out of every backward row, and on gpt2_124m the
// plans that recomputed those chains peaked above their rows.
void find_readers(const Graph& g, LinearPlanModel& m) {
  const size_t values = m.values.size();
  std::vector<int32_t> first(values, std::numeric_limits<int32_t>::max()), last(values, -1);
  bool unread = true;
  for (size_t depth = 0; depth < 3 || (unread && depth < values); ++depth) {
    std::vector<int32_t> deeper_first = first, deeper_last = last;
    unread = false;
    for (size_t v = 0; v < values; ++v) {
      if (depth >= 3 && last[v] >= 0) continue;
      for (NodeId u : g.users[m.values[v]]) {
        if (m.position[u] >= 0) {
          deeper_first[v] = std::min(deeper_first[v], m.position[u]);
          deeper_last[v] = std::max(deeper_last[v], m.position[u]);
        } else if (m.index[u] >= 0) {
          deeper_first[v] = std::min(deeper_first[v], first[static_cast<size_t>(m.index[u])]);
          deeper_last[v] = std::max(deeper_last[v], last[static_cast<size_t>(m.index[u])]);
        }
      }
      if (deeper_last[v] < 0) unread = true;
    }
    if (depth >= 3 && deeper_last == last) break;
    first = std::move(deeper_first);
    last = std::move(deeper_last);
  }
  m.first_reader = std::move(first);
  m.last_reader = std::move(last);
}

// The steps of the reference plan's run that can be peaks, each read from
// its simulation (plan/peak_rows.h's simulated_row). Returns the
// reference plan's simulated peak.
uint64_t find_steps(const Graph& g, const PartitionResult& ref, const Settings& s, const Device& device,
                    const BandwidthOptions& o, const Flags& own, LinearPlanModel& m) {
  MemoryTimeline t;
  const uint64_t peak = estimate_bandwidth_and_peak(g, ref, s.op_classes, device, o, PassDetail::Totals, &t).memory.peak_bytes;
  const size_t n = t.steps.size();
  m.position.assign(g.size(), -1);
  std::vector<size_t> own_steps;  // per position: its step
  for (size_t i = t.backward_from; i < n; ++i) {
    if (!own[t.steps[i]] || m.position[t.steps[i]] >= 0) continue;
    m.position[t.steps[i]] = static_cast<int32_t>(own_steps.size());
    own_steps.push_back(i);
  }
  find_readers(g, m);
  m.reference = linear_choice(m, ref);
  const LinearChoice& choice = m.reference;
  const std::vector<CategoryBytes> by_step = bytes_by_step(t);
  // What the reference plan holds at a step beyond the row's terms.
  auto baseline = [&](const LinearStep& row, size_t i) {
    const uint64_t total = total_bytes(by_step[i]), terms = step_bytes(row, choice);
    return total > terms ? total - terms : 0;
  };
  std::vector<size_t> kept;  // steps of t

  // Forward: the live sets grow, so a step whose baseline no later step's
  // reaches is a step that can be a peak.
  uint64_t later = 0;
  for (size_t i = t.backward_from; i-- > 0;) {
    const uint64_t base = baseline(forward_row(m, t.steps[i]), i);
    if (base <= later && !kept.empty()) continue;
    later = std::max(later, base);
    kept.push_back(i);
  }
  // Backward: the saved live sets shrink step by step: keep the steps whose
  // baseline is above every earlier one, and those where the baseline with
  // every value that may be recomputed there is.
  uint64_t earlier = 0, earlier_with_recomputed = 0;
  for (size_t p = 0; p < own_steps.size(); ++p) {
    const LinearStep row = backward_row(m, static_cast<int32_t>(p));
    const uint64_t base = baseline(row, own_steps[p]);
    m.reference_baseline.push_back(base);
    uint64_t recomputable_bytes = 0;
    for (const LinearTerm& term : row.recomputed) recomputable_bytes += term.bytes;
    const bool keep = base > earlier || base + recomputable_bytes > earlier_with_recomputed || p == 0;
    earlier = std::max(earlier, base);
    earlier_with_recomputed = std::max(earlier_with_recomputed, base + recomputable_bytes);
    if (keep) kept.push_back(own_steps[p]);
  }
  for (size_t i : kept) m.steps.push_back(simulated_row(g, m, t, i, choice));
  if (m.steps.size() > kMaxSteps) {
    // The steps with the most that could be live at them.
    auto most = [&](const LinearStep& a) {
      uint64_t b = a.baseline;
      for (const LinearTerm& term : a.saved) b += term.bytes;
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
  find_costs(g, ref, s, device, o, own, m);
  const uint64_t simulated = find_steps(g, ref, s, device, o, own, m);
  m.reference_peak = simulated;
  // Each row reads the reference plan's simulated bytes at its step, but
  // where its terms alone exceed them (the model counts some bytes twice
  // that the simulation shares: a saved view and its base, a fused value
  // stored in place): lower every baseline by the reference plan's excess
  // then, so that a limit the reference plan fits is not infeasible for
  // the ILP.
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

uint64_t step_bytes(const LinearStep& step, const LinearChoice& c) {
  uint64_t live = step.baseline;
  for (const LinearTerm& term : step.saved) live += c.saved[static_cast<size_t>(term.value)] ? term.bytes : 0;
  for (const LinearTerm& term : step.recomputed) live += c.recomputed[static_cast<size_t>(term.value)] ? term.bytes : 0;
  return live;
}

uint64_t linear_peak(const LinearPlanModel& m, const LinearChoice& c) {
  uint64_t peak = 0;
  for (const LinearStep& step : m.steps) peak = std::max(peak, step_bytes(step, c));
  return peak;
}

}  // namespace pt
