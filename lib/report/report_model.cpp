#include "report/report_model.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <utility>

#include "estimate/bandwidth_model.h"
#include "partition/memory_budget.h"
#include "partition/ban_heuristics.h"
#include "partition/ban_reason.h"

namespace pt {

namespace {

std::vector<std::string_view> names(const Graph& g, const std::vector<NodeId>& ids) {
  std::vector<std::string_view> out;
  out.reserve(ids.size());
  for (NodeId id : ids) out.push_back(g[id].name);
  return out;
}

ValueSet value_set(const Graph& g, const std::vector<NodeId>& ids) {
  ValueSet v;
  v.count = static_cast<int64_t>(ids.size());
  for (NodeId id : ids) v.bytes += g[id].size_bytes;
  return v;
}

// What the backward reads from the forward when nothing is recomputed:
// forward nodes with a reader outside the forward (the output node aside).
std::vector<NodeId> backward_reads(const Graph& g, const Classification& c) {
  std::vector<NodeId> out;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!c.required_fw[id]) continue;
    for (NodeId u : g.users[id]) {
      if (!c.required_fw[u] && g[u].op != OpKind::Output) {
        out.push_back(id);
        break;
      }
    }
  }
  return out;
}

SavedRow saved_row(const Graph& g, const PartitionResult& r, NodeId id) {
  SavedRow row;
  row.name = g[id].name;
  row.bytes = g[id].size_bytes;
  const proto::Node& pn = g.record(id);
  const proto::Value& val = pn.val();
  if (val.has_tensor()) {
    const proto::TensorMeta& tensor = val.tensor();
    row.dtype = tensor.dtype();
    row.shape.assign(tensor.shape().begin(), tensor.shape().end());
  } else if (val.has_sym()) {
    const auto kind = g[id].sym_kind;
    row.dtype = kind == SymKind::Float ? "sym float" : kind == SymKind::Bool ? "sym bool" : "sym int";
  }
  row.module_path = pn.module_path();
  row.reason = &save_reason(g, r, id);
  return row;
}

std::vector<CountRow> sorted_counts(const std::map<std::string, std::pair<int64_t, std::string>>& counts) {
  std::vector<CountRow> out;
  for (const auto& [what, v] : counts) out.push_back({what, v.first, v.second});
  std::stable_sort(out.begin(), out.end(), [](const CountRow& a, const CountRow& b) { return a.count > b.count; });
  return out;
}

void add_warnings(const ReportInputs& in, ReportModel& m) {
  const Partitioned& p = in.partitioned;
  const Graph& g = p.prepared.graph;
  const PartitionResult& r = p.result;
  if (!in.settings.ban_recompute_rng_seeds) {
    std::vector<NodeId> random;
    for (NodeId id : r.extraction.recomputed) {
      if (recompute_changes_random_numbers(g, id, in.settings.op_classes)) random.push_back(id);
    }
    if (!random.empty()) {
      m.warnings.push_back("the plan changes the training's random numbers: the backward recomputes " +
                           std::to_string(random.size()) + " random node" + (random.size() == 1 ? "" : "s") +
                           " (" + std::string(g[random[0]].name) + (random.size() > 1 ? ", ..." : "") +
                           ") and draws other numbers than the forward (ban_recompute_rng_seeds=false)");
    }
  }
  if (r.budget && !r.budget->solver_note.empty()) m.warnings.push_back(r.budget->solver_note);
}

// Time the step spends on convolutions Inductor keeps NCHW, beyond
// channels-last (layout conversions, misaligned GEMMs): a cost the user
// can remove by running the model channels-last.
void add_conversion_note(ReportModel& m) {
  const double s = m.bandwidth.forward.conversion_seconds + m.bandwidth.backward.conversion_seconds;
  if (s <= 0) return;
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.2f", s * 1e3);
  m.warnings.push_back(std::string("Inductor keeps this graph's 16-bit convolutions NCHW, slower than "
                                   "channels-last (cuDNN's layout conversions around wider filters, misaligned "
                                   "GEMMs for 1x1 layers at pixel counts that are not a multiple of 8): ") +
                       ms + " ms of the predicted step; channels-last inputs and weights avoid it");
}

// Everything but the bandwidth model's and the peak memory's fields: read
// from the partition alone.
void add_partition_facts(const ReportInputs& in, ReportModel& m) {
  const Partitioned& p = in.partitioned;
  const Graph& g = p.prepared.graph;
  const PartitionResult& r = p.result;
  const Extraction& e = r.extraction;
  m.graph = in.joint.name;
  m.source = in.joint.source;
  m.nodes_input = in.joint.nodes;
  m.nodes_after_prepare = g.size();
  m.nodes_dead = static_cast<int64_t>(p.prepared.dead.size());
  m.nodes_cse_merged = static_cast<int64_t>(p.prepared.merged.size());

  // Rows reserved, not grown by doubling: at 10^6 nodes each doubling
  // copied the rows into fresh pages of this thread's heap.
  const auto saved = e.fw_saved_outputs();
  m.saved.reserve(saved.size());
  for (NodeId id : saved) m.saved.push_back(saved_row(g, r, id));
  m.saved_values = names(g, e.saved_values);
  m.saved_sym_nodes = names(g, e.saved_sym_nodes);
  m.saved_bytes = value_set(g, saved).bytes;
  m.save_all_read = value_set(g, backward_reads(g, r.classification));
  m.inputs_only = value_set(g, r.classification.inputs);
  m.recomputed = names(g, e.recomputed);
  add_warnings(in, m);
  m.dropped = names(g, e.dropped);

  std::map<std::string, std::pair<int64_t, std::string>> by_op, by_reason;
  for (NodeId id : e.recomputed) ++by_op[std::string(g[id].packet)].first;
  m.recomputed_by_op = sorted_counts(by_op);
  // Each ban's reason is a static text (viewed, not copied), counted per
  // reason and keyed by its text once: at 10^6 nodes a text copy per row
  // and a map lookup per ban were ~140,000 of each.
  const auto& banned = r.solution.network.banned;
  m.banned.reserve(static_cast<size_t>(
      std::count_if(banned.begin(), banned.end(), [](BanReason b) { return b != BanReason::None; })));
  std::array<int64_t, kBanReasonCount> bans_of{};
  for (NodeId id = 0; id < static_cast<NodeId>(banned.size()); ++id) {
    if (banned[id] == BanReason::None) continue;
    m.banned.emplace_back(g[id].name, ban_reason_detail(banned[id]));
    ++bans_of[static_cast<size_t>(banned[id])];
  }
  for (size_t k = 0; k < bans_of.size(); ++k) {
    if (bans_of[k] == 0) continue;
    const auto why = static_cast<BanReason>(k);  // each reason has a text of its own
    by_reason[std::string(ban_reason_detail(why))] = {bans_of[k], std::string(ban_reason_setting(why))};
  }
  m.bans_by_reason = sorted_counts(by_reason);
  m.must_save_tags = p.prepared.must_save;

  m.cut_value = to_string(r.solution.cut.value);
  m.cut_value_number = to_double(r.solution.cut.value);
  for (const auto& v : r.cut_values) m.solves.push_back(to_double(v));
  m.flow_vertices = r.solution.network.used_vertex_count();
  m.flow_arcs = r.solution.network.distinct_arc_count();
  m.default_partition = r.default_partition;
  m.saved_set_given = r.saved_set_given;
  if (r.budget) {
    m.budget_stage = r.budget->stage;
    BudgetReport b;
    b.budget = r.budget->budget;
    b.stage = r.budget->stage;
    b.min_gb = r.budget->min_gb;
    b.max_gb = r.budget->max_gb;
    for (const auto& solve : r.budget->solves) {
      std::vector<std::string> names;
      for (NodeId id : solve.cut.saved) names.push_back(std::string(g[id].name));
      b.solves_saved.push_back(std::move(names));
    }
    for (const auto& item : r.budget->items) {
      b.items.push_back({std::string(g[item.node].name), g[item.node].size_bytes, item.memory, item.runtime, item.kept});
    }
    m.budget = std::move(b);
  }

  const Settings defaults;  // one for both comparisons
  m.settings = typed_settings(in.settings, defaults);
  m.settings_changed = in.settings.changed_keys(defaults);
}

}  // namespace

ReportModel build_report(const ReportInputs& in) {
  ReportModel m;
  // The peak simulation records its timeline for the values live at the
  // peak (and the plot, when asked for).
  add_partition_facts(in, m);
  const Graph& g = in.partitioned.prepared.graph;
  MemoryTimeline timeline;
  BandwidthAndPeak traffic = estimate_bandwidth_and_peak(g, in.partitioned.result, in.settings.op_classes, in.device,
                                                         in.bandwidth_options, PassDetail::Totals, &timeline);
  m.bandwidth = std::move(traffic.bandwidth);
  m.memory = std::move(traffic.memory);
  add_conversion_note(m);
  for (const LiveValue& v : live_at_peak(g, timeline)) {
    m.live_at_peak.push_back({g[v.node].name, v.bytes, v.category, v.reason,
                              v.reader == kNoNode ? std::string_view() : g[v.reader].name});
  }
  if (in.memory_plot) m.memory_plot = memory_plot_series(g, timeline, *m.memory, "");
  m.timings = in.timings;
  return m;
}

}  // namespace pt
