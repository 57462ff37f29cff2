#include "report/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <sstream>
#include <system_error>
#include <thread>
#include <atomic>

#include "analysis/runtime_estimate.h"
#include "graph/errors.h"
#include "partition/partitioner.h"
#include "report/memory_limit_sweep.h"
#include "prepare/prepare.h"
#include "estimate/bandwidth_model.h"
#include "report/setting_values.h"

namespace pt {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

double range_number(const std::string& text, const std::string& range) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v)) {
    throw SettingsError("--range " + range + ": '" + text + "' is not a number (expected start:stop:step)");
  }
  return v;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

SweepRow row_for(const Graph& g, const PartitionResult& r, const Settings& s, const Device& device,
                 const BandwidthOptions& o, size_t plot_points) {
  SweepRow row;
  const auto saved = r.extraction.fw_saved_outputs();
  row.saved_count = static_cast<int64_t>(saved.size());
  for (NodeId id : saved) {
    row.saved_bytes += g[id].size_bytes;
    row.saved.push_back(std::string(g[id].name));
  }
  row.recomputed_count = static_cast<int64_t>(r.extraction.recomputed.size());
  for (NodeId id : r.extraction.recomputed) row.recomputed_flops += count_flops_if_readable(g, id);
  const BandwidthEstimate bw = estimate_bandwidth(g, r, s.op_classes, device, o, PassDetail::Totals);
  row.forward_bytes = bw.forward.bytes();
  row.backward_bytes = bw.backward.bytes();
  row.forward_seconds = bw.forward.seconds;
  row.backward_seconds = bw.backward.seconds;
  MemoryTimeline timeline;
  const PeakMemory peak = fused_peak_memory(g, r, s.op_classes, bw, o, plot_points > 0 ? &timeline : nullptr);
  row.peak_bytes = peak.peak_bytes;
  row.peak_at = peak.peak_at;
  if (plot_points > 0) row.memory_plot = memory_plot_series(g, timeline, peak, "", plot_points);
  return row;
}

}  // namespace

std::vector<std::string> sweep_values_from_list(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) {
    item = trim(item);
    if (item.empty()) throw SettingsError("--values '" + list + "': empty value");
    out.push_back(item);
  }
  if (out.empty()) throw SettingsError("--values is empty");
  return out;
}

std::vector<std::string> sweep_values_from_range(const std::string& range) {
  std::vector<std::string> parts;
  std::stringstream ss(range);
  for (std::string item; std::getline(ss, item, ':');) parts.push_back(trim(item));
  if (parts.size() != 3) throw SettingsError("--range '" + range + "': expected start:stop:step");
  // Percentages (memory_limit's "60%" of the default plan's peak): all three
  // parts or none, and every value keeps its percent sign.
  size_t percents = 0;
  for (auto& p : parts) {
    if (!p.empty() && p.back() == '%') {
      p.pop_back();
      ++percents;
    }
  }
  if (percents != 0 && percents != 3) {
    throw SettingsError("--range '" + range + "': give start, stop and step all in percent (50%:90%:10%) or none");
  }
  const std::string unit = percents == 3 ? "%" : "";
  const double start = range_number(parts[0], range), stop = range_number(parts[1], range),
               step = range_number(parts[2], range);
  if (step <= 0 || stop < start) {
    throw SettingsError("--range '" + range + "': needs start <= stop and a positive step");
  }
  const double count = std::floor((stop - start) / step + 1e-9) + 1;
  // A bound on rows: each row is a full partition.
  if (count > 10000) throw SettingsError("--range '" + range + "': more than 10000 values");
  std::vector<std::string> out;
  for (int i = 0; i < static_cast<int>(count); ++i) out.push_back(number_text(start + i * step) + unit);
  return out;
}

SweepRow sweep_row(const Graph& g, const PartitionResult& r, const Settings& s, const Device& device,
                   const BandwidthOptions& o) {
  return row_for(g, r, s, device, o, 0);
}

SweepResult run_sweep(const Graph& joint, const Settings& base, const std::string& key,
                      const std::vector<std::string>& values, const Device& device, const BandwidthOptions& o,
                      unsigned jobs, size_t memory_plot_points) {
  typed_setting(base, key);  // throws for op-class and unknown keys
  // Each limit picks from one set of candidate plans instead of partitioning.
  if (key == "memory_limit") return run_memory_limit_sweep(joint, base, values, device, o, jobs);
  std::vector<Settings> settings;
  for (const auto& v : values) {
    settings.push_back(base);
    settings.back().set(key, v);
  }
  SweepResult out;
  out.graph = joint.header->name();
  out.key = key;
  out.device = device.name;
  // Preparation reads only `cse` among the scalar keys.
  const bool prepare_each = key == "cse";
  std::optional<PrepareResult> prepared;
  if (!prepare_each) prepared = prepare(joint, base);

  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  // GLPK (the ilp solver's backend) keeps global state: rows that may reach
  // it run one at a time.
  for (const auto& s : settings) {
    if (s.activation_memory_budget_solver == "ilp" && s.activation_memory_budget < 1) jobs = 1;
  }
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, values.size()));
  // Each row reads the shared graphs and writes only its own slot.
  std::vector<SweepRow> rows(values.size());
  std::vector<std::exception_ptr> failures(values.size());
  // A value that cannot be computed (no finite cut, a weight past a double,
  // a setting combination refused) marks its row and the other rows go on;
  // any other failure (out of memory, a defect) stops the sweep.
  auto mark_failed = [&](size_t i, const std::exception& e) {
    rows[i] = SweepRow{};
    rows[i].error = e.what();
  };
  auto solve_row = [&](size_t i) {
    try {
      if (prepare_each) {
        const PrepareResult p = prepare(joint, settings[i]);
        rows[i] = row_for(p.graph, partition_graph(p.graph, settings[i]), settings[i], device, o,
                          memory_plot_points);
      } else {
        rows[i] = row_for(prepared->graph, partition_graph(prepared->graph, settings[i]), settings[i], device, o,
                          memory_plot_points);
      }
    } catch (const InfeasibleError& e) {
      mark_failed(i, e);
    } catch (const InputError& e) {
      mark_failed(i, e);
    } catch (const SettingsError& e) {
      mark_failed(i, e);
    } catch (...) {
      failures[i] = std::current_exception();
    }
    rows[i].value = values[i];
    if (rows[i].memory_plot) rows[i].memory_plot->label = key + "=" + values[i];
  };
  if (jobs <= 1) {
    for (size_t i = 0; i < values.size(); ++i) solve_row(i);
  } else {
    std::atomic<size_t> next{0};
    auto take_rows = [&] {
      for (size_t i = next++; i < values.size(); i = next++) solve_row(i);
    };
    {
      std::vector<std::jthread> workers;
      for (unsigned t = 1; t < jobs; ++t) {
        try {
          workers.emplace_back(take_rows);
        } catch (const std::system_error&) {
          break;  // no more threads to be had (a container's pids limit): fewer share the rows
        }
      }
      take_rows();  // this thread is one of the `jobs`
    }  // joined
  }
  // The first failing row in value order, whatever thread met it first.
  for (const auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
  for (size_t i = 1; i < rows.size(); ++i) {
    const SweepRow& prev = rows[i - 1];
    rows[i].cut_changed = prev.saved != rows[i].saved || prev.error.empty() != rows[i].error.empty();
  }
  out.rows = std::move(rows);
  return out;
}

}  // namespace pt
