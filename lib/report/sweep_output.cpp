// The sweep's column table and its three formats (see sweep.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "graph/human_units.h"
#include "report/json_writer.h"
#include "report/sweep.h"

namespace pt {

namespace {

std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Rows without a finite cut show "-" (CSV: empty, JSON: null) instead of numbers.
SweepColumn integer_column(std::string name, std::string header, uint64_t (*get)(const SweepRow&), std::string (*human)(double)) {
  return {std::move(name), std::move(header),
          [get, human](const SweepRow& r) { return r.error.empty() ? human(get(r)) : std::string("-"); },
          [get](const SweepRow& r) { return r.error.empty() ? std::to_string(get(r)) : std::string(); },
          [get](JsonWriter& w, const SweepRow& r) {
            if (r.error.empty()) w.value(get(r));
            else w.null_value();
          }};
}

// Traffic and FLOP totals: doubles (bandwidth_model.h), integers in CSV and
// JSON where they are exact.
SweepColumn total_column(std::string name, std::string header, double (*get)(const SweepRow&), std::string (*human)(double)) {
  return {std::move(name), std::move(header),
          [get, human](const SweepRow& r) { return r.error.empty() ? human(get(r)) : std::string("-"); },
          [get](const SweepRow& r) { return r.error.empty() ? count_number(get(r)) : std::string(); },
          [get](JsonWriter& w, const SweepRow& r) {
            if (r.error.empty()) w.value(get(r));
            else w.null_value();
          }};
}

SweepColumn seconds_column(std::string name, std::string header, double (*get)(const SweepRow&)) {
  return {std::move(name), std::move(header),
          [get](const SweepRow& r) { return r.error.empty() ? human_seconds(get(r)) : std::string("-"); },
          [get](const SweepRow& r) { return r.error.empty() ? exact(get(r)) : std::string(); },
          [get](JsonWriter& w, const SweepRow& r) {
            if (r.error.empty()) w.value(get(r));
            else w.null_value();
          }};
}

std::string count_text(double v) { return count_number(v); }

}  // namespace

std::vector<SweepColumn> sweep_columns(const std::string& key) {
  // The text table keeps to 100 columns: the traffic and per-pass times are
  // in CSV and JSON only, the text shows their sum (step time).
  std::vector<SweepColumn> c = {
      {key, key, [](const SweepRow& r) { return r.value; }, [](const SweepRow& r) { return r.value; },
       [](JsonWriter& w, const SweepRow& r) { w.value(r.value); }},
      {"cut_changed", "", [](const SweepRow& r) { return std::string(r.cut_changed ? "*" : ""); },
       [](const SweepRow& r) { return std::string(r.cut_changed ? "true" : "false"); },
       [](JsonWriter& w, const SweepRow& r) { w.value(r.cut_changed); }},
      integer_column("saved_count", "saved", [](const SweepRow& r) { return static_cast<uint64_t>(r.saved_count); }, count_text),
      integer_column("saved_bytes", "saved bytes", [](const SweepRow& r) { return r.saved_bytes; }, human_bytes),
      integer_column("recomputed_count", "recomputed", [](const SweepRow& r) { return static_cast<uint64_t>(r.recomputed_count); },
                     count_text),
      total_column("forward_bytes", "fw traffic", [](const SweepRow& r) { return r.forward_bytes; }, human_bytes),
      seconds_column("forward_seconds", "fw time", [](const SweepRow& r) { return r.forward_seconds; }),
      total_column("backward_bytes", "bw traffic", [](const SweepRow& r) { return r.backward_bytes; }, human_bytes),
      seconds_column("backward_seconds", "bw time", [](const SweepRow& r) { return r.backward_seconds; }),
      integer_column("peak_bytes", "peak memory", [](const SweepRow& r) { return r.peak_bytes; }, human_bytes),
      {"peak_at", "peak at", [](const SweepRow& r) { return r.peak_at; }, [](const SweepRow& r) { return r.peak_at; },
       [](JsonWriter& w, const SweepRow& r) { w.value(r.peak_at); }},
      total_column("recomputed_flops", "recomp FLOP", [](const SweepRow& r) { return r.recomputed_flops; }, human_flops),
      seconds_column("step_seconds", "step time", [](const SweepRow& r) { return r.step_seconds(); }),
  };
  // A memory_limit sweep names each limit's plan (the text prints it below
  // the rows where the cut changes: too wide for a column).
  if (key == "memory_limit") {
    c.push_back({"plan", "plan", [](const SweepRow& r) { return r.plan; }, [](const SweepRow& r) { return r.plan; },
                 [](JsonWriter& w, const SweepRow& r) {
                   if (r.error.empty()) w.value(r.plan);
                   else w.null_value();
                 }});
  }
  for (auto& column : c) {
    column.in_text = column.name != "forward_seconds" && column.name != "backward_seconds" &&
                     column.name != "backward_bytes" && column.name != "peak_at" && column.name != "plan";
  }
  return c;
}

void write_sweep_text(std::ostream& out, const SweepResult& r) {
  std::vector<SweepColumn> columns;
  for (auto& c : sweep_columns(r.key)) {
    if (c.in_text) columns.push_back(std::move(c));
  }
  auto width_of = [&](const SweepColumn& c) {
    size_t w = c.header.size();
    for (const auto& row : r.rows) w = std::max(w, c.text(row).size());
    return w;
  };
  // Lines fit 100 columns: a long key or value drops the columns that CSV
  // and JSON still carry, least telling first.
  for (const char* name : {"forward_bytes", "recomputed_count", "saved_count"}) {
    size_t total = 1;
    for (const auto& c : columns) total += 1 + width_of(c);
    if (total <= 100) break;
    columns.erase(std::remove_if(columns.begin(), columns.end(), [&](const SweepColumn& c) { return c.name == name; }),
                  columns.end());
  }
  const size_t changes = static_cast<size_t>(
      std::count_if(r.rows.begin(), r.rows.end(), [](const SweepRow& row) { return row.cut_changed; }));
  out << "sweep of " << r.key << " on " << r.graph << " (times for " << r.device << ")\n  " << r.rows.size()
      << " values; the cut changes " << changes << (changes == 1 ? " time" : " times") << " (marked *)\n";
  std::vector<std::string> headers;
  std::vector<size_t> width;
  for (const auto& c : columns) {
    headers.push_back(c.header);
    width.push_back(width_of(c));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = " ";
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string pad(width[i] - cells[i].size(), ' ');
      s += ' ';
      if (i == 0) s.append(cells[i]).append(pad);  // first column left-aligned, the rest right
      else s.append(pad).append(cells[i]);
    }
    out << s << "\n";
  };
  line(headers);
  for (const auto& row : r.rows) {
    std::vector<std::string> cells;
    for (const auto& c : columns) cells.push_back(c.text(row));
    line(cells);
    if (!row.error.empty()) out << "    not computed: " << row.error << "\n";
    else if (!row.plan.empty() && (row.cut_changed || &row == &r.rows.front())) out << "    plan: " << row.plan << "\n";
  }
}

void write_sweep_csv(std::ostream& out, const SweepResult& r) {
  const auto columns = sweep_columns(r.key);
  for (size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << csv_cell(columns[i].name);
  out << ",error\n";
  for (const auto& row : r.rows) {
    for (size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << csv_cell(columns[i].raw(row));
    out << "," << csv_cell(row.error) << "\n";
  }
}

namespace {

// A swept value as JSON: true/false and numbers as themselves, anything
// else (a solver's name) as a string.
void setting_value_json(JsonWriter& w, const std::string& text) {
  if (text == "true" || text == "false") {
    w.value(text == "true");
    return;
  }
  char* end = nullptr;
  const double number = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (end && *end == '\0' && std::isfinite(number)) w.value(number);
  else w.value(text);
}

}  // namespace

void write_sweep_json(std::ostream& out, const SweepResult& r) {
  const auto columns = sweep_columns(r.key);
  JsonWriter w(out);
  w.begin_object();
  w.field("schema_version", kJsonSchemaVersion);
  w.field("graph", r.graph);
  w.field("key", r.key);
  w.field("device", r.device);
  w.key("rows");
  w.begin_array();
  for (const auto& row : r.rows) {
    w.begin_object();
    w.key("value");
    setting_value_json(w, row.value);
    for (size_t i = 1; i < columns.size(); ++i) {
      w.key(columns[i].name);
      columns[i].json(w, row);
    }
    if (!row.error.empty()) w.field("error", row.error);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out << "\n";
}

}  // namespace pt
