// Everything one report says about one partition, computed once from the
// pipeline's result; the text, JSON and Markdown writers only format it.
// Field names follow the JSON report (README, "JSON report").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "estimate/peak_memory.h"
#include "graph/graph.h"
#include "settings/settings.h"
#include "pipeline/pipeline.h"
#include "graph/stage_timer.h"
#include "plan/memory_limit_plan.h"
#include "estimate/bandwidth_model.h"
#include "report/memory_plot_svg.h"
#include "report/save_reason.h"
#include "report/setting_values.h"

namespace pt {

// Node names view the prepared graph's (Partitioned::prepared): a model
// lives no longer than the partition it was built from. A 10^6-node report
// held ~400,000 copies of names (saved, recomputed, banned) before.
// Its texts view the graph's records and static strings, as `name` views
// the graph: a row is 88 bytes smaller than with copies, and 10^6-node
// graphs save ~100,000 values (13 MB of the report's peak memory).
struct SavedRow {
  std::string_view name;
  uint64_t bytes = 0;
  // Copies: the node's record, where they are read, is a decoded temporary.
  std::string dtype;           // "bfloat16"; "sym int" for symbols
  std::vector<int64_t> shape;  // empty for scalars and symbols
  std::string module_path;
  const SaveReason* reason = nullptr;  // never null in a built row
};

// A value holding memory at the peak (estimate/memory_timeline.h); names
// view the prepared graph's, as SavedRow's.
struct LiveRow {
  std::string_view name;
  uint64_t bytes = 0;
  MemoryCategory category = MemoryCategory::Temporary;
  LiveReason reason = LiveReason::AwaitingReader;
  std::string_view reader;  // its last reader; empty for none
  std::string reason_text() const { return live_reason_text(reason, reader); }
};

// A count with what it is about and the setting that turns it off.
struct CountRow {
  std::string what;
  int64_t count = 0;
  std::string setting;
};

struct ValueSet {
  int64_t count = 0;
  uint64_t bytes = 0;
};

// How the memory budget decided (partition/memory_budget.h), for the JSON
// report: enough to re-check the cascade and the knapsack independently.
struct BudgetItemRow {
  std::string node;
  uint64_t bytes = 0;
  double memory = 0;   // (bytes / 1e9) / (max_gb - min_gb)
  double runtime = 0;  // max(FLOPs, 1)
  bool kept = false;   // saved; false: the knapsack recomputes it
};

struct BudgetReport {
  double budget = 1;
  std::string stage;
  double min_gb = 0, max_gb = 0;
  std::vector<std::vector<std::string>> solves_saved;  // each solve's cut, graph order
  std::vector<BudgetItemRow> items;                    // knapsack items, largest first
};

struct ReportModel {
  std::string graph;   // the joint graph's name
  std::string source;  // its file
  int64_t nodes_input = 0, nodes_after_prepare = 0, nodes_dead = 0, nodes_cse_merged = 0;

  std::vector<SavedRow> saved;  // values then symbols, as the forward outputs them
  std::vector<std::string_view> saved_values, saved_sym_nodes, recomputed, dropped;  // node names
  uint64_t saved_bytes = 0;
  ValueSet save_all_read;  // saving everything the backward reads (recomputing nothing)
  ValueSet inputs_only;    // saving only the inputs (primals and forward seeds)

  std::vector<CountRow> recomputed_by_op;  // most first, then by name
  std::vector<std::pair<std::string_view, std::string_view>> banned;  // (node, reason text: static), graph order
  std::vector<CountRow> bans_by_reason;    // most first
  std::vector<std::pair<std::string, std::string>> must_save_tags;

  std::string cut_value;       // exact decimal
  double cut_value_number = 0; // the same as a JSON number (exact below 2^53)
  std::vector<double> solves;  // every solve's cut value
  int64_t flow_vertices = 0, flow_arcs = 0;
  bool default_partition = false;
  bool saved_set_given = false;  // a memory-limit plan beyond the knobs: no cut was solved
  std::string budget_stage;    // empty without a memory budget
  std::optional<BudgetReport> budget;  // set when activation_memory_budget < 1
  // One line each, printed by every writer: a plan that changes the
  // training's random numbers (ban_recompute_rng_seeds=false), the ilp
  // solver's time limit.
  std::vector<std::string> warnings;

  std::vector<SettingValue> settings;
  std::vector<std::string> settings_changed;  // scalar keys and edited op classes
  BandwidthEstimate bandwidth;
  std::optional<PeakMemory> memory;
  std::vector<LiveRow> live_at_peak;  // every value live at memory.peak_at, largest first
  std::optional<MemoryPlotSeries> memory_plot;  // when ReportInputs::memory_plot
  std::optional<MemoryPlan> plan;  // under memory_limit: how the plan was chosen (set by the caller)
  std::vector<StageTiming> timings;
};

// What the report says about the joint graph before preparation. Implicit
// from the Graph, so that a caller may free the joint graph's nodes once it
// is partitioned (partition_joint_releasing) and still report it.
struct JointSummary {
  JointSummary(const Graph& joint)  // NOLINT(google-explicit-constructor)
      : name(joint.header->name()), source(joint.source), nodes(joint.size()) {}
  std::string name, source;
  int64_t nodes = 0;
};

struct ReportInputs {
  JointSummary joint;
  const Partitioned& partitioned;
  const Settings& settings;
  Device device;
  BandwidthOptions bandwidth_options;
  std::vector<StageTiming> timings;
  bool memory_plot = false;  // also aggregate the memory timeline (ReportModel::memory_plot)
};

ReportModel build_report(const ReportInputs& in);

}  // namespace pt
