// `sweep`: one settings key over a list of values, one partition per value.
// The graph is parsed once and, unless the key is `cse` (which changes
// preparation), prepared once; each row then re-runs classification, the
// cut and extraction, the bandwidth model and the peak-memory simulation.
// Rows are independent, so they run on `jobs` threads; the result does not
// depend on the thread count (rows are written by index, compared after).
//
// Rows are plain structs and every output format reads the same column
// table (sweep_columns): a new column is one field and one table entry.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"
#include "report/memory_plot_svg.h"

namespace pt {

struct SweepRow {
  std::string value;            // as given to Settings::set
  std::string error;            // non-empty when this value could not be computed: why
  int64_t saved_count = 0;      // values and symbols the forward saves
  uint64_t saved_bytes = 0;
  int64_t recomputed_count = 0;
  double forward_bytes = 0;     // bandwidth model: loaded + stored (bandwidth_model.h's doubles)
  double backward_bytes = 0;
  double forward_seconds = 0;
  double backward_seconds = 0;
  uint64_t peak_bytes = 0;          // peak_memory.h, fusion-aware (as the report)
  std::string peak_at;              // node running at the peak
  double recomputed_flops = 0;      // FLOPs of the ops the backward runs again
  double step_seconds() const { return forward_seconds + backward_seconds; }
  bool cut_changed = false;     // saves other values than the row before
  std::string plan;             // a memory_limit sweep: the plan the limit gets (PlanCandidate::description)
  std::vector<std::string> saved;  // names, to compare rows
  std::optional<MemoryPlotSeries> memory_plot;  // with run_sweep's memory_plot_points (label: the value)
};

class JsonWriter;

struct SweepColumn {
  std::string name;                                       // CSV/JSON field
  std::string header;                                     // text header (short: the table fits 100 columns)
  std::function<std::string(const SweepRow&)> text;       // human-readable cell
  std::function<std::string(const SweepRow&)> raw;        // CSV cell (exact numbers)
  std::function<void(JsonWriter&, const SweepRow&)> json;  // JSON value (typed)
  bool in_text = true;  // the text table shows it (CSV and JSON show every column)
};

struct SweepResult {
  std::string graph;
  std::string key;
  std::string device;
  std::vector<SweepRow> rows;
  // Sweeps of memory_limit (report/memory_limit_sweep.h): the plans of
  // PyTorch's activation_memory_budget grid, drawn beside the rows' frontier.
  std::vector<SweepRow> knob_points;
};

// "a,b,c" -> {a, b, c}; "start:stop:step" -> start, start+step, ... up to
// stop inclusive (within 1e-9 steps), each printed with 12 significant
// digits so 1.0 + 3 * 0.05 reads "1.15"; "50%:90%:10%" -> 50%, 60%, ...,
// 90% (memory_limit's percentages). Throws SettingsError.
std::vector<std::string> sweep_values_from_list(const std::string& list);
std::vector<std::string> sweep_values_from_range(const std::string& range);

// Throws SettingsError for a key that is not a scalar setting, a --range on
// a non-numeric key, or a value the key does not accept (before any work).
// `jobs` = 0 uses every hardware thread; rows never outnumber values.
// `memory_plot_points` > 0: each row also keeps its memory timeline in at
// most that many points (SweepRow::memory_plot).
SweepResult run_sweep(const Graph& joint, const Settings& base, const std::string& key,
                      const std::vector<std::string>& values, const Device& device, const BandwidthOptions& o = {},
                      unsigned jobs = 0, size_t memory_plot_points = 0);

// One row's figures for partition r of the prepared graph g (value unset).
SweepRow sweep_row(const Graph& g, const PartitionResult& r, const Settings& s, const Device& device,
                   const BandwidthOptions& o);

// The columns, in order; the first is the swept value.
std::vector<SweepColumn> sweep_columns(const std::string& key);

void write_sweep_text(std::ostream& out, const SweepResult& r);
void write_sweep_csv(std::ostream& out, const SweepResult& r);
void write_sweep_json(std::ostream& out, const SweepResult& r);

}  // namespace pt
