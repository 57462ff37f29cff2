#include "report/report_text.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "report/plan_report.h"
#include "graph/human_units.h"

namespace pt {

namespace {

// printf into a string (report lines are short).
template <typename... Args>
std::string format(const char* fmt, Args... args) {
  char line[512];
  std::snprintf(line, sizeof line, fmt, args...);
  return line;
}

size_t shown_rows(size_t total, size_t top) { return top == 0 ? total : std::min(top, total); }

std::string hidden_note(size_t shown, size_t total) {
  if (shown >= total) return "";
  return format("  ... %zu more not shown (--top 0 shows all)\n", total - shown);
}

std::string heading(const std::string& title, size_t shown, size_t total) {
  if (shown >= total) return title + "\n";
  return title + " (largest " + std::to_string(shown) + " of " + std::to_string(total) + ")\n";
}

std::string pass_line(const char* label, const PassEstimate& p) {
  std::string s = format("  %-14s %9s moved (%s loaded, %s stored)", label, human_bytes(p.bytes()).c_str(),
                         human_bytes(p.bytes_loaded).c_str(), human_bytes(p.bytes_stored).c_str());
  if (p.flops > 0) s += ", " + human_flops(p.flops);
  return s + ": " + human_seconds(p.seconds) + "\n";
}

// "dist_from_bw_base=1.2, recompute_views=true", or "PyTorch 2.11 defaults".
std::string changed_settings_text(const ReportModel& m) {
  std::string out;
  for (const auto& k : m.settings_changed) {
    const auto it = std::find_if(m.settings.begin(), m.settings.end(), [&](const SettingValue& s) { return s.key == k; });
    out += (out.empty() ? "" : ", ") + k + (it != m.settings.end() ? "=" + it->text : " (edited)");
  }
  return out.empty() ? "PyTorch 2.11 defaults" : out;
}

void write_summary(std::ostream& out, const ReportModel& m) {
  out << "Summary\n";
  out << format("  %-14s %zu values, %s\n", "saved", m.saved.size(), human_bytes(m.saved_bytes).c_str());
  out << format("  %-14s saving everything the backward reads: %lld values, %s\n", "",
                static_cast<long long>(m.save_all_read.count), human_bytes(m.save_all_read.bytes).c_str());
  out << format("  %-14s saving only the inputs: %lld values, %s\n", "",
                static_cast<long long>(m.inputs_only.count), human_bytes(m.inputs_only.bytes).c_str());
  out << format("  %-14s %zu ops run again in the backward\n", "recomputed", m.recomputed.size());
  if (!m.dropped.empty()) {
    out << format("  %-14s %zu values the cut chose but the backward never reads\n", "dropped", m.dropped.size());
  }
  const Device& d = m.bandwidth.device;
  std::string achieved;
  if (d.memory_efficiency != 1 || d.matmul_efficiency != 1) {
    achieved = format(" peak, run at %.2g and %.2g of them", d.memory_efficiency, d.matmul_efficiency);
  }
  out << format("  %-14s on %s (%.4g TB/s, %.4g TFLOP/s%s), bandwidth model:\n", "traffic", d.name.c_str(),
                d.bytes_per_second / 1e12, d.flops_per_second / 1e12, achieved.c_str());
  out << pass_line("  forward", m.bandwidth.forward);
  out << pass_line("  backward", m.bandwidth.backward);
  if (m.memory) {
    out << format("  %-14s %s at %s (%s)\n", "peak memory", human_bytes(m.memory->peak_bytes).c_str(),
                  m.memory->peak_at.c_str(), m.memory->peak_pass.c_str());
  }
  if (m.saved_set_given) {
    out << format("  %-14s none: the memory-limit plan chose the saved set\n", "cut value");
    return;
  }
  std::string cut = format("  %-14s %s (%zu solve%s", "cut value", m.cut_value.c_str(), m.solves.size(),
                           m.solves.size() == 1 ? "" : "s");
  if (!m.budget_stage.empty()) cut += ", memory budget: " + m.budget_stage;
  if (m.default_partition) cut += ", default partition: nothing reads a tangent";
  out << cut << ")\n";
}

// Dynamo writes every module path from the root module's local name
// (L['self'].blocks.0.fc); the table drops that common prefix to fit.
std::string short_module(const std::string& path) {
  if (path.empty()) return "-";
  const auto end = path.find("'].");
  if (path.rfind("L['", 0) == 0 && end != std::string::npos) return path.substr(end + 3);
  return path;
}

void write_saved(std::ostream& out, const ReportModel& m, size_t top) {
  std::vector<const SavedRow*> rows;
  for (const auto& r : m.saved) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const SavedRow* a, const SavedRow* b) { return a->bytes > b->bytes; });
  const size_t shown = shown_rows(rows.size(), top);
  out << "\n" << heading("Largest saved values", shown, rows.size());
  // 2 + 24 + 1 + 8 + 1 + 8 + 1 + 14 + 1 + 16 + 1 + 23 = 100 columns.
  out << format("  %-24s %8s %-8s %-14s %-16s %s\n", "name", "size", "dtype", "shape", "module", "why saved");
  for (size_t i = 0; i < shown; ++i) {
    const SavedRow& r = *rows[i];
    out << format("  %-24s %8s %-8s %-14s %-16s %s\n", fit_right(std::string(r.name), 24).c_str(), human_bytes(r.bytes).c_str(),
                  fit_right(std::string(r.dtype), 8).c_str(), fit_right(shape_text(r.shape), 14).c_str(),
                  fit_left(short_module(std::string(r.module_path)), 16).c_str(), fit_right(std::string(r.reason->label), 23).c_str());
  }
  out << hidden_note(shown, rows.size());
}

// What holds memory at the peak: the values a user would cut to lower it.
void write_live_at_peak(std::ostream& out, const ReportModel& m, size_t top) {
  if (!m.memory || m.live_at_peak.empty()) return;
  const size_t shown = shown_rows(m.live_at_peak.size(), top);
  out << "\n" << heading("Largest values live at the peak, at " + fit_right(m.memory->peak_at, 30), shown,
                          m.live_at_peak.size());
  // 2 + 24 + 1 + 8 + 1 + 11 + 1 + 52 = 100 columns.
  out << format("  %-24s %8s %-11s %s\n", "name", "size", "category", "why alive");
  for (size_t i = 0; i < shown; ++i) {
    const LiveRow& r = m.live_at_peak[i];
    out << format("  %-24s %8s %-11s %s\n", fit_right(std::string(r.name), 24).c_str(), human_bytes(r.bytes).c_str(),
                  std::string(memory_category_name(r.category)).c_str(), fit_right(r.reason_text(), 52).c_str());
  }
  out << hidden_note(shown, m.live_at_peak.size());
}

void write_counts(std::ostream& out, const std::string& title, const char* what, const std::vector<CountRow>& rows,
                  size_t top, bool with_setting) {
  if (rows.empty()) return;
  const size_t shown = shown_rows(rows.size(), top);
  out << "\n" << (shown < rows.size() ? title + " (" + std::to_string(shown) + " of " + std::to_string(rows.size()) +
                                            " kinds)\n"
                                      : title + "\n");
  if (with_setting) out << format("  %-50s %7s  %s\n", what, "count", "turned off by");
  else out << format("  %-50s %7s\n", what, "count");
  for (size_t i = 0; i < shown; ++i) {
    const CountRow& r = rows[i];
    std::string line = format("  %-50s %7lld", fit_right(r.what, 50).c_str(), static_cast<long long>(r.count));
    if (with_setting) line += "  " + fit_right(r.setting.empty() ? "(always on)" : r.setting, 38);
    out << line << "\n";
  }
  out << hidden_note(shown, rows.size());
}

void write_settings(std::ostream& out, const ReportModel& m) {
  out << "\nSettings that differ from the defaults\n";
  bool any = false;
  for (const auto& s : m.settings) {
    if (!s.changed) continue;
    any = true;
    out << format("  %-40s %-20s (default %s)\n", s.key.c_str(), s.text.c_str(), s.default_text.c_str());
  }
  for (const auto& k : m.settings_changed) {
    const bool scalar = std::any_of(m.settings.begin(), m.settings.end(), [&](const SettingValue& s) { return s.key == k; });
    if (scalar) continue;
    any = true;
    out << format("  %-40s edited (default: PyTorch 2.11's list)\n", k.c_str());
  }
  if (!any) out << "  none: PyTorch 2.11 defaults\n";
}

}  // namespace

void write_report_text(std::ostream& out, const ReportModel& m, const TextReportOptions& options) {
  out << "partition_tool report: " << m.graph << " (" << m.source << ")\n";
  out << format("  %lld nodes in the joint graph, %lld after dead-code elimination (%lld removed) and CSE "
                "(%lld merged)\n",
                static_cast<long long>(m.nodes_input), static_cast<long long>(m.nodes_after_prepare),
                static_cast<long long>(m.nodes_dead), static_cast<long long>(m.nodes_cse_merged));
  out << wrap_text("settings: " + changed_settings_text(m), 100, "  ", "            ") << "\n";
  for (const auto& w : m.warnings) out << "  warning: " << w << "\n";
  write_summary(out, m);
  if (m.plan) write_plan_text(out, *m.plan);
  write_saved(out, m, options.top);
  write_live_at_peak(out, m, options.top);
  write_counts(out, "Recomputed ops by kind", "op", m.recomputed_by_op, options.top, false);
  write_counts(out, "Recomputation bans by reason", "reason", m.bans_by_reason, options.top, true);
  write_settings(out, m);
}

}  // namespace pt
