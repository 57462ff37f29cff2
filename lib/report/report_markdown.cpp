#include "report/report_markdown.h"

#include <algorithm>
#include <string>

#include "report/plan_report.h"
#include "graph/human_units.h"
#include "report/report_totals.h"

namespace pt {

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string markdown_code(const std::string& s) { return s.empty() ? "" : "`" + markdown_cell(s) + "`"; }

namespace {

std::string cell(const std::string& s) { return markdown_cell(s); }
std::string code(const std::string& s) { return markdown_code(s); }

void hidden(std::ostream& out, size_t shown, size_t total) {
  if (shown < total) out << "\n_" << total - shown << " more not shown (`--top 0` shows all)._\n";
}

void pass_row(std::ostream& out, const char* name, const PassEstimate& p) {
  out << "| " << name << " | " << human_bytes(p.bytes_loaded) << " | " << human_bytes(p.bytes_stored) << " | "
      << human_flops(p.flops) << " | " << human_seconds(p.seconds) << " |\n";
}

}  // namespace

void write_report_markdown(std::ostream& out, const ReportModel& m, const TextReportOptions& options) {
  const auto shown_of = [&](size_t total) { return options.top == 0 ? total : std::min(options.top, total); };
  out << "## partition_tool report: " << code(m.graph) << "\n\n";
  out << m.nodes_input << " nodes in the joint graph, " << m.nodes_after_prepare
      << " after dead-code elimination and CSE. Source: " << code(m.source) << ".\n\n";
  for (const auto& w : m.warnings) out << "> **Warning:** " << cell(w) << "\n\n";
  out << "| | values | bytes |\n| --- | ---: | ---: |\n";
  out << "| **saved** | " << m.saved.size() << " | " << human_bytes(m.saved_bytes) << " |\n";
  out << "| saving everything the backward reads | " << m.save_all_read.count << " | "
      << human_bytes(m.save_all_read.bytes) << " |\n";
  out << "| saving only the inputs | " << m.inputs_only.count << " | " << human_bytes(m.inputs_only.bytes) << " |\n\n";
  out << "Recomputed in the backward: " << m.recomputed.size() << " ops.";
  if (m.saved_set_given) {
    out << " No cut: the memory-limit plan chose the saved set.";
  } else {
    out << " Cut value " << m.cut_value << " (" << m.solves.size() << (m.solves.size() == 1 ? " solve" : " solves")
        << ").";
  }
  if (m.memory) {
    out << " Peak memory " << human_bytes(m.memory->peak_bytes) << " at " << code(m.memory->peak_at) << " ("
        << m.memory->peak_pass << ").";
  }
  out << "\n\n| bandwidth model on " << cell(m.bandwidth.device.name)
      << " | loaded | stored | FLOPs | time |\n| --- | ---: | ---: | ---: | ---: |\n";
  pass_row(out, "forward", m.bandwidth.forward);
  pass_row(out, "backward", m.bandwidth.backward);
  if (m.plan) write_plan_markdown(out, *m.plan);

  std::vector<const SavedRow*> rows;
  for (const auto& r : m.saved) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const SavedRow* a, const SavedRow* b) { return a->bytes > b->bytes; });
  const size_t shown = shown_of(rows.size());
  out << "\n### Largest saved values\n\n| name | size | dtype | shape | module | why saved |\n"
         "| --- | ---: | --- | --- | --- | --- |\n";
  for (size_t i = 0; i < shown; ++i) {
    const SavedRow& r = *rows[i];
    out << "| " << code(std::string(r.name)) << " | " << human_bytes(r.bytes) << " | " << cell(std::string(r.dtype)) << " | "
        << shape_text(r.shape) << " | " << code(std::string(r.module_path)) << " | " << cell(std::string(r.reason->label)) << " |\n";
  }
  hidden(out, shown, rows.size());

  if (m.memory && !m.live_at_peak.empty()) {
    const size_t n = shown_of(m.live_at_peak.size());
    out << "\n### Largest values live at the peak (" << code(m.memory->peak_at)
        << ")\n\n| name | size | category | why alive |\n| --- | ---: | --- | --- |\n";
    for (size_t i = 0; i < n; ++i) {
      const LiveRow& r = m.live_at_peak[i];
      out << "| " << code(std::string(r.name)) << " | " << human_bytes(r.bytes) << " | "
          << memory_category_name(r.category) << " | " << cell(r.reason_text()) << " |\n";
    }
    hidden(out, n, m.live_at_peak.size());
  }

  if (!m.recomputed_by_op.empty()) {
    const size_t n = shown_of(m.recomputed_by_op.size());
    out << "\n### Recomputed ops by kind\n\n| op | count |\n| --- | ---: |\n";
    for (size_t i = 0; i < n; ++i) {
      out << "| " << code(m.recomputed_by_op[i].what) << " | " << m.recomputed_by_op[i].count << " |\n";
    }
    hidden(out, n, m.recomputed_by_op.size());
  }
  if (!m.bans_by_reason.empty()) {
    const size_t n = shown_of(m.bans_by_reason.size());
    out << "\n### Recomputation bans by reason\n\n| reason | count | turned off by |\n| --- | ---: | --- |\n";
    for (size_t i = 0; i < n; ++i) {
      const CountRow& r = m.bans_by_reason[i];
      out << "| " << cell(r.what) << " | " << r.count << " | " << (r.setting.empty() ? "(always on)" : code(r.setting))
          << " |\n";
    }
    hidden(out, n, m.bans_by_reason.size());
  }
  out << "\n### Settings that differ from the defaults\n\n";
  bool any = false;
  for (const auto& s : m.settings) {
    if (!s.changed) continue;
    if (!any) out << "| key | value | default |\n| --- | --- | --- |\n";
    any = true;
    out << "| " << code(s.key) << " | " << code(s.text) << " | " << code(s.default_text) << " |\n";
  }
  for (const auto& k : m.settings_changed) {
    if (std::any_of(m.settings.begin(), m.settings.end(), [&](const SettingValue& s) { return s.key == k; })) continue;
    if (!any) out << "| key | value | default |\n| --- | --- | --- |\n";
    any = true;
    out << "| " << code(k) << " | edited | PyTorch 2.11's list |\n";
  }
  if (!any) out << "None: PyTorch 2.11 defaults.\n";
}

void write_reports_markdown(std::ostream& out, const std::vector<const ReportModel*>& models,
                            const TextReportOptions& options) {
  for (const ReportModel* m : models) {
    write_report_markdown(out, *m, options);
    out << "\n";
  }
  const ReportTotals t = total_of(models);
  out << "## Totals over " << t.graphs << " graphs\n\n| | total |\n| --- | ---: |\n"
      << "| nodes | " << t.nodes << " |\n"
      << "| saved values | " << t.saved_count << " |\n"
      << "| saved bytes | " << human_bytes(t.saved_bytes) << " |\n"
      << "| recomputed ops | " << t.recomputed_count << " |\n"
      << "| forward traffic | " << human_bytes(t.forward_bytes) << " |\n"
      << "| backward traffic | " << human_bytes(t.backward_bytes) << " |\n"
      << "| forward time | " << human_seconds(t.forward_seconds) << " |\n"
      << "| backward time | " << human_seconds(t.backward_seconds) << " |\n"
      << "| largest peak memory | " << human_bytes(t.peak_bytes_max) << " |\n";
}

}  // namespace pt
