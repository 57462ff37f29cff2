#include "report/report_json.h"

#include <utility>

#include "report/plan_report.h"
#include "report/json_writer.h"
#include "report/report_totals.h"

namespace pt {

namespace {

// Cut values are integers; exact as JSON integers while they fit 64 bits.
void integral(JsonWriter& w, double v) {
  if (v >= -9.2e18 && v <= 9.2e18 && v == static_cast<double>(static_cast<int64_t>(v))) {
    w.value(static_cast<int64_t>(v));
  } else {
    w.value(v);
  }
}

template <typename Text>
void string_list(JsonWriter& w, std::string_view key, const std::vector<Text>& items) {
  w.key(key);
  w.begin_array();
  for (const auto& s : items) w.value(s);
  w.end_array();
}

template <typename Name, typename Text>
void pairs_object(JsonWriter& w, std::string_view key, const std::vector<std::pair<Name, Text>>& items) {
  w.key(key);
  w.begin_object();
  for (const auto& [k, v] : items) w.field(k, v);
  w.end_object();
}

void value_set(JsonWriter& w, std::string_view key, const ValueSet& v) {
  w.key(key);
  w.begin_object();
  w.field("count", v.count);
  w.field("bytes", v.bytes);
  w.end_object();
}

void saved_rows(JsonWriter& w, const std::vector<SavedRow>& rows) {
  w.key("saved");
  w.begin_array();
  for (const auto& r : rows) {
    w.begin_object();
    w.field("name", r.name);
    w.field("bytes", r.bytes);
    w.field("dtype", r.dtype);
    w.key("shape");
    w.begin_array();
    for (int64_t d : r.shape) w.value(d);
    w.end_array();
    w.field("module_path", r.module_path);
    w.field("reason", r.reason->text);
    w.field("reason_code", r.reason->code);
    w.field("setting", r.reason->setting);
    w.end_object();
  }
  w.end_array();
}

void count_rows(JsonWriter& w, std::string_view key, std::string_view what, const std::vector<CountRow>& rows) {
  w.key(key);
  w.begin_array();
  for (const auto& r : rows) {
    w.begin_object();
    w.field(what, r.what);
    w.field("count", r.count);
    if (what == "reason") w.field("setting", r.setting);
    w.end_object();
  }
  w.end_array();
}

void settings(JsonWriter& w, const std::vector<SettingValue>& values) {
  w.key("settings");
  w.begin_object();
  for (const auto& s : values) {
    w.key(s.key);
    switch (s.kind) {
      case SettingValue::Kind::Bool: w.value(s.boolean); break;
      case SettingValue::Kind::Number: w.value(s.number); break;
      case SettingValue::Kind::Text: w.value(s.text); break;
    }
  }
  w.end_object();
}

void pass(JsonWriter& w, std::string_view key, const PassEstimate& p) {
  w.key(key);
  w.begin_object();
  w.field("bytes_loaded", p.bytes_loaded);
  w.field("bytes_stored", p.bytes_stored);
  w.field("bytes_loaded_from_cache", p.bytes_cached);
  w.field("flops", p.flops);
  w.field("seconds", p.seconds);
  w.field("layout_conversion_seconds", p.conversion_seconds);
  w.field("kernels", p.kernel_count);
  w.end_object();
}

void bandwidth(JsonWriter& w, const BandwidthEstimate& b) {
  w.key("bandwidth");
  w.begin_object();
  w.key("device");
  w.begin_object();
  w.field("name", b.device.name);
  w.field("bytes_per_second", b.device.bytes_per_second);
  w.field("flops_per_second", b.device.flops_per_second);
  w.field("fp32_flops_per_second", b.device.fp32_flops_per_second);
  w.field("memory_efficiency", b.device.memory_efficiency);
  w.field("matmul_efficiency", b.device.matmul_efficiency);
  w.field("erf_seconds", b.device.erf_seconds);
  w.field("exp_seconds", b.device.exp_seconds);
  w.field("cached_row_bytes", b.device.cached_row_bytes);
  w.key("attention");
  w.begin_object();
  const std::pair<const char*, const AttentionFit*> fits[] = {{"forward", &b.device.attention.forward},
                                                              {"backward", &b.device.attention.backward},
                                                              {"causal_forward", &b.device.attention.causal_forward},
                                                              {"causal_backward", &b.device.attention.causal_backward}};
  for (const auto& [name, fit] : fits) {
    w.key(name);
    w.begin_object();
    w.field("rate_d64", fit->rate_d64);
    w.field("rate_d128", fit->rate_d128);
    w.field("s0", fit->s0);
    w.end_object();
  }
  w.end_object();
  w.end_object();
  pass(w, "forward", b.forward);
  pass(w, "backward", b.backward);
  w.end_object();
}

// Peak memory (estimate/peak_memory.h); null when it was not computed.
void budget(JsonWriter& w, const std::optional<BudgetReport>& b) {
  w.key("budget");
  if (!b) {
    w.null_value();
    return;
  }
  w.begin_object();
  w.field("budget", b->budget);
  w.field("stage", b->stage);
  w.field("min_gb", b->min_gb);
  w.field("max_gb", b->max_gb);
  w.key("solves");
  w.begin_array();
  for (const auto& saved : b->solves_saved) {
    w.begin_object();
    string_list(w, "saved", saved);
    w.end_object();
  }
  w.end_array();
  w.key("items");
  w.begin_array();
  for (const auto& item : b->items) {
    w.begin_object();
    w.field("node", item.node);
    w.field("bytes", item.bytes);
    w.field("memory", item.memory);
    w.field("runtime", item.runtime);
    w.field("kept", item.kept);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

// Every value live at the peak, largest first.
void live_at_peak(JsonWriter& w, const std::vector<LiveRow>& rows) {
  w.key("live_at_peak");
  w.begin_array();
  for (const auto& r : rows) {
    w.begin_object();
    w.field("name", r.name);
    w.field("bytes", r.bytes);
    w.field("category", memory_category_name(r.category));
    w.field("reason", r.reason_text());
    w.field("reason_code", live_reason_code(r.reason));
    w.field("read_last_by", r.reader);
    w.end_object();
  }
  w.end_array();
}

void memory(JsonWriter& w, const std::optional<PeakMemory>& m, const std::vector<LiveRow>& live) {
  w.key("memory");
  if (!m) {
    w.null_value();
    return;
  }
  w.begin_object();
  w.field("peak_bytes", m->peak_bytes);
  w.field("peak_at", m->peak_at);
  w.field("peak_pass", m->peak_pass);
  w.field("forward_peak_bytes", m->forward_peak_bytes);
  w.field("backward_peak_bytes", m->backward_peak_bytes);
  w.field("saved_bytes", m->saved_bytes);
  w.field("input_bytes", m->input_bytes);
  live_at_peak(w, live);
  w.end_object();
}

void report_object(JsonWriter& w, const ReportModel& m) {
  w.begin_object();
  w.field("schema_version", kJsonSchemaVersion);
  w.field("graph", m.graph);
  w.field("source", m.source);
  w.key("nodes");
  w.begin_object();
  w.field("input", m.nodes_input);
  w.field("after_prepare", m.nodes_after_prepare);
  w.field("dead", m.nodes_dead);
  w.field("cse_merged", m.nodes_cse_merged);
  w.end_object();

  string_list(w, "saved_values", m.saved_values);
  string_list(w, "saved_sym_nodes", m.saved_sym_nodes);
  w.field("saved_bytes", m.saved_bytes);
  saved_rows(w, m.saved);
  w.key("extremes");
  w.begin_object();
  value_set(w, "save_all_read", m.save_all_read);
  value_set(w, "inputs_only", m.inputs_only);
  w.end_object();
  string_list(w, "recomputed", m.recomputed);
  count_rows(w, "recomputed_by_op", "op", m.recomputed_by_op);
  string_list(w, "dropped", m.dropped);
  pairs_object(w, "banned", m.banned);
  count_rows(w, "bans_by_reason", "reason", m.bans_by_reason);
  pairs_object(w, "must_save_tags", m.must_save_tags);

  w.key("cut_value");
  if (m.saved_set_given) w.null_value();  // no cut: the memory-limit plan chose the saved set
  else integral(w, m.cut_value_number);
  w.field("cut_value_exact", m.saved_set_given ? std::string() : m.cut_value);
  w.key("solves");
  w.begin_array();
  for (double v : m.solves) integral(w, v);
  w.end_array();
  w.key("flow_network");
  w.begin_object();
  w.field("vertices", m.flow_vertices);
  w.field("arcs", m.flow_arcs);
  w.end_object();
  w.field("default_partition", m.default_partition);
  w.field("budget_stage", m.budget_stage);
  budget(w, m.budget);
  string_list(w, "warnings", m.warnings);

  settings(w, m.settings);
  string_list(w, "settings_changed", m.settings_changed);
  bandwidth(w, m.bandwidth);
  memory(w, m.memory, m.live_at_peak);
  write_plan_json(w, m.plan);
  w.key("timings");
  w.begin_object();
  for (const auto& t : m.timings) w.field(t.stage, t.seconds);
  w.end_object();
  w.end_object();
}

void totals(JsonWriter& w, const ReportTotals& t) {
  w.key("totals");
  w.begin_object();
  w.field("graphs", t.graphs);
  w.field("nodes", t.nodes);
  w.field("saved_count", t.saved_count);
  w.field("saved_bytes", t.saved_bytes);
  w.field("recomputed_count", t.recomputed_count);
  w.field("forward_bytes", t.forward_bytes);
  w.field("backward_bytes", t.backward_bytes);
  w.field("forward_seconds", t.forward_seconds);
  w.field("backward_seconds", t.backward_seconds);
  w.field("peak_bytes_max", t.peak_bytes_max);
  w.end_object();
}

}  // namespace

void write_report_json(std::ostream& out, const ReportModel& m) {
  {
    JsonWriter w(out);
    report_object(w, m);
  }
  out << "\n";
}

void write_reports_json(std::ostream& out, const std::vector<const ReportModel*>& models) {
  {
    JsonWriter w(out);
    w.begin_object();
    w.field("schema_version", kJsonSchemaVersion);
    w.key("graphs");
    w.begin_array();
    for (const ReportModel* m : models) report_object(w, *m);
    w.end_array();
    totals(w, total_of(models));
    w.end_object();
  }
  out << "\n";
}

}  // namespace pt
