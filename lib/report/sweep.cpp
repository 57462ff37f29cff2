#include "report/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "graph/errors.h"
#include "partition/partitioner.h"
#include "prepare/prepare.h"
#include "report/bandwidth_model.h"
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
                 const BandwidthOptions& o) {
  SweepRow row;
  const auto saved = r.extraction.fw_saved_outputs();
  row.saved_count = static_cast<int64_t>(saved.size());
  for (NodeId id : saved) {
    row.saved_bytes += g[id].size_bytes;
    row.saved.push_back(g[id].name);
  }
  row.recomputed_count = static_cast<int64_t>(r.extraction.recomputed.size());
  const BandwidthEstimate bw = estimate_bandwidth(g, r, s.op_classes, device, o);
  row.forward_bytes = bw.forward.bytes();
  row.backward_bytes = bw.backward.bytes();
  row.forward_seconds = bw.forward.seconds;
  row.backward_seconds = bw.backward.seconds;
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
  const double start = range_number(parts[0], range), stop = range_number(parts[1], range),
               step = range_number(parts[2], range);
  if (step <= 0 || stop < start) {
    throw SettingsError("--range '" + range + "': needs start <= stop and a positive step");
  }
  const double count = std::floor((stop - start) / step + 1e-9) + 1;
  // A bound on rows: each row is a full partition.
  if (count > 10000) throw SettingsError("--range '" + range + "': more than 10000 values");
  std::vector<std::string> out;
  for (int i = 0; i < static_cast<int>(count); ++i) out.push_back(number_text(start + i * step));
  return out;
}

SweepResult run_sweep(const Graph& joint, const Settings& base, const std::string& key,
                      const std::vector<std::string>& values, const Device& device, const BandwidthOptions& o) {
  typed_setting(base, key);  // throws for op-class and unknown keys
  std::vector<Settings> settings;
  for (const auto& v : values) {
    settings.push_back(base);
    settings.back().set(key, v);
  }
  SweepResult out;
  out.graph = joint.message->name();
  out.key = key;
  out.device = device.name;
  // Preparation reads only `cse` among the scalar keys.
  const bool prepare_each = key == "cse";
  std::optional<PrepareResult> prepared;
  if (!prepare_each) prepared = prepare(joint, base);
  for (size_t i = 0; i < values.size(); ++i) {
    SweepRow row;
    try {
      if (prepare_each) {
        const PrepareResult p = prepare(joint, settings[i]);
        row = row_for(p.graph, partition_graph(p.graph, settings[i]), settings[i], device, o);
      } else {
        row = row_for(prepared->graph, partition_graph(prepared->graph, settings[i]), settings[i], device, o);
      }
    } catch (const InfeasibleError& e) {
      row = SweepRow{};
      row.error = e.what();
    }
    row.value = values[i];
    if (!out.rows.empty()) {
      const SweepRow& prev = out.rows.back();
      row.cut_changed = prev.saved != row.saved || prev.error.empty() != row.error.empty();
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace pt
