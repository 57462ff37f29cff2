#include "report/diff.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "graph/human_units.h"
#include "report/json_writer.h"

namespace pt {

namespace {

template <typename T, typename Key>
std::vector<T> only_in(const std::vector<T>& mine, const std::vector<T>& theirs, Key key) {
  std::unordered_set<std::string> other;
  for (const auto& t : theirs) other.insert(key(t));
  std::vector<T> out;
  for (const auto& t : mine) {
    if (!other.count(key(t))) out.push_back(t);
  }
  return out;
}

// Memory figures of one graph stay below 2^52 (graph/value_bytes_limit.h;
// read_report_json checks those it reads): their difference fits.
int64_t delta(uint64_t a, uint64_t b) { return static_cast<int64_t>(b) - static_cast<int64_t>(a); }

PassDelta pass_delta(const PassTotals& a, const PassTotals& b) {
  return {b.bytes_loaded - a.bytes_loaded, b.bytes_stored - a.bytes_stored, b.bytes() - a.bytes(),
          b.seconds - a.seconds};
}

// "A: dist_from_bw_base=1.2" (or "defaults"), and the report file it came from.
std::string side_label(const char* side, const CutSummary& c) {
  std::string s;
  for (const auto& kv : c.settings) s += (s.empty() ? "" : ", ") + kv;
  std::string out = std::string(side) + ": " + (s.empty() ? "defaults" : s);
  if (c.label != side) out += " (" + c.label + ")";
  if (!c.plan.empty()) out += "; plan: " + c.plan;
  return out;
}

void write_saved_list(std::ostream& out, const std::string& title,
                      const std::vector<std::pair<std::string, uint64_t>>& rows, size_t top) {
  if (rows.empty()) return;
  const size_t shown = top == 0 ? rows.size() : std::min(top, rows.size());
  out << title << " (" << rows.size() << ")\n";
  char line[160];
  for (size_t i = 0; i < shown; ++i) {
    std::snprintf(line, sizeof line, "  %-60s %10s\n", fit_right(rows[i].first, 60).c_str(),
                  human_bytes(rows[i].second).c_str());
    out << line;
  }
  if (shown < rows.size()) out << "  ... " << rows.size() - shown << " more (--top 0 lists all)\n";
}

void write_name_list(std::ostream& out, const std::string& title, const std::vector<std::string>& names, size_t top) {
  if (names.empty()) return;
  const size_t shown = top == 0 ? names.size() : std::min(top, names.size());
  std::string text;
  for (size_t i = 0; i < shown; ++i) text += (i ? ", " : "") + names[i];
  if (shown < names.size()) text += ", ... " + std::to_string(names.size() - shown) + " more (--top 0 lists all)";
  out << title << " (" << names.size() << ")\n" << wrap_text(text, 100, "  ", "  ");
}

void write_row(std::ostream& out, const char* what, const std::string& a, const std::string& b, const std::string& d) {
  char line[160];
  std::snprintf(line, sizeof line, "  %-26s %14s %14s %14s\n", what, a.c_str(), b.c_str(), d.c_str());
  out << line;
}

void write_side(JsonWriter& w, const CutSummary& c) {
  w.begin_object();
  w.field("label", c.label);
  w.field("graph", c.graph);
  w.key("settings_changed");
  w.begin_array();
  for (const auto& s : c.settings) w.value(s);
  w.end_array();
  w.field("saved_count", static_cast<int64_t>(c.saved.size()));
  w.field("saved_bytes", c.saved_bytes);
  w.field("recomputed_count", static_cast<int64_t>(c.recomputed.size()));
  if (!c.plan.empty()) w.field("plan", c.plan);
  w.field("device", c.device);
  for (const auto& [key, p] : {std::pair<const char*, const PassTotals*>{"forward", &c.forward}, {"backward", &c.backward}}) {
    w.key(key);
    w.begin_object();
    w.field("bytes_loaded", p->bytes_loaded);
    w.field("bytes_stored", p->bytes_stored);
    w.field("flops", p->flops);
    w.field("seconds", p->seconds);
    w.end_object();
  }
  if (c.peak_bytes) w.field("peak_bytes", *c.peak_bytes);
  w.end_object();
}

void write_pass_delta(JsonWriter& w, const char* key, const PassDelta& p) {
  w.key(key);
  w.begin_object();
  w.field("bytes_loaded", p.bytes_loaded);
  w.field("bytes_stored", p.bytes_stored);
  w.field("bytes", p.bytes);
  w.field("seconds", p.seconds);
  w.end_object();
}

}  // namespace

CutDiff diff_cuts(const CutSummary& a, const CutSummary& b) {
  CutDiff d;
  const auto first = [](const std::pair<std::string, uint64_t>& p) { return p.first; };
  const auto self = [](const std::string& s) { return s; };
  d.saved_only_a = only_in(a.saved, b.saved, first);
  d.saved_only_b = only_in(b.saved, a.saved, first);
  d.recomputed_only_a = only_in(a.recomputed, b.recomputed, self);
  d.recomputed_only_b = only_in(b.recomputed, a.recomputed, self);
  d.identical = d.saved_only_a.empty() && d.saved_only_b.empty();
  d.saved_bytes_delta = delta(a.saved_bytes, b.saved_bytes);
  d.forward = pass_delta(a.forward, b.forward);
  d.backward = pass_delta(a.backward, b.backward);
  d.same_device = a.device == b.device;
  if (a.peak_bytes && b.peak_bytes) d.peak_bytes_delta = delta(*a.peak_bytes, *b.peak_bytes);
  return d;
}

std::vector<DeltaRow> delta_rows(const CutSummary& a, const CutSummary& b, const CutDiff& d) {
  const std::string dev = d.same_device ? " (" + a.device + ")" : "";
  std::vector<DeltaRow> rows = {
      {"saved", human_bytes(a.saved_bytes), human_bytes(b.saved_bytes), human_bytes_delta(d.saved_bytes_delta)},
      {"forward traffic", human_bytes(a.forward.bytes()), human_bytes(b.forward.bytes()),
       human_bytes_delta(d.forward.bytes)},
      {"forward time" + dev, human_seconds(a.forward.seconds), human_seconds(b.forward.seconds),
       human_seconds_delta(d.forward.seconds)},
      {"backward traffic", human_bytes(a.backward.bytes()), human_bytes(b.backward.bytes()),
       human_bytes_delta(d.backward.bytes)},
      {"backward time" + dev, human_seconds(a.backward.seconds), human_seconds(b.backward.seconds),
       human_seconds_delta(d.backward.seconds)},
  };
  if (d.peak_bytes_delta) {
    rows.push_back({"peak memory", human_bytes(*a.peak_bytes), human_bytes(*b.peak_bytes),
                    human_bytes_delta(*d.peak_bytes_delta)});
  }
  return rows;
}

void write_diff_text(std::ostream& out, const CutSummary& a, const CutSummary& b, const CutDiff& d, size_t top) {
  out << "diff of " << a.graph << (a.graph == b.graph ? "" : " vs " + b.graph) << "\n";
  out << wrap_text(side_label("A", a), 100, "  ", "     ");
  out << wrap_text(side_label("B", b), 100, "  ", "     ");
  if (d.identical) {
    out << "  the cuts are identical: both save the same " << a.saved.size() << " values\n";
  } else {
    out << "  the cuts differ: " << d.saved_only_a.size() << " saved only in A, " << d.saved_only_b.size()
        << " only in B; " << d.recomputed_only_a.size() << " recomputed only in A, " << d.recomputed_only_b.size()
        << " only in B\n";
  }
  out << "\n";
  write_saved_list(out, "Saved only in A", d.saved_only_a, top);
  write_saved_list(out, "Saved only in B", d.saved_only_b, top);
  write_name_list(out, "Recomputed only in A", d.recomputed_only_a, top);
  write_name_list(out, "Recomputed only in B", d.recomputed_only_b, top);
  if (!d.identical || !d.recomputed_only_a.empty() || !d.recomputed_only_b.empty()) out << "\n";

  write_row(out, "", "A", "B", "B - A");
  for (const DeltaRow& r : delta_rows(a, b, d)) write_row(out, r.what.c_str(), r.a, r.b, r.delta);
  if (!d.same_device) {
    out << "  note: A's times are for " << a.device << ", B's for " << b.device << "\n";
  }
}

namespace {

void diff_fields(JsonWriter& w, const CutSummary& a, const CutSummary& b, const CutDiff& d) {
  w.field("identical", d.identical);
  w.key("a");
  write_side(w, a);
  w.key("b");
  write_side(w, b);
  for (const auto& [key, rows] : {std::pair<const char*, const std::vector<std::pair<std::string, uint64_t>>*>{
                                      "saved_only_a", &d.saved_only_a},
                                  {"saved_only_b", &d.saved_only_b}}) {
    w.key(key);
    w.begin_array();
    for (const auto& [name, bytes] : *rows) {
      w.begin_object();
      w.field("name", name);
      w.field("bytes", bytes);
      w.end_object();
    }
    w.end_array();
  }
  for (const auto& [key, names] :
       {std::pair<const char*, const std::vector<std::string>*>{"recomputed_only_a", &d.recomputed_only_a},
        {"recomputed_only_b", &d.recomputed_only_b}}) {
    w.key(key);
    w.begin_array();
    for (const auto& n : *names) w.value(n);
    w.end_array();
  }
  w.key("delta");
  w.begin_object();
  w.field("saved_bytes", d.saved_bytes_delta);
  write_pass_delta(w, "forward", d.forward);
  write_pass_delta(w, "backward", d.backward);
  if (d.peak_bytes_delta) w.field("peak_bytes", *d.peak_bytes_delta);
  w.field("same_device", d.same_device);
  w.end_object();
}

}  // namespace

void write_diff_json(std::ostream& out, const CutSummary& a, const CutSummary& b, const CutDiff& d) {
  {
    JsonWriter w(out);
    w.begin_object();
    w.field("schema_version", kJsonSchemaVersion);
    diff_fields(w, a, b, d);
    w.end_object();
  }
  out << "\n";
}

void write_diffs_json(std::ostream& out, const std::vector<GraphDiff>& diffs) {
  {
    JsonWriter w(out);
    w.begin_object();
    w.field("schema_version", kJsonSchemaVersion);
    w.field("identical", std::all_of(diffs.begin(), diffs.end(), [](const GraphDiff& g) { return g.d.identical; }));
    w.key("graphs");
    w.begin_array();
    for (const GraphDiff& g : diffs) {
      w.begin_object();
      diff_fields(w, g.a, g.b, g.d);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  out << "\n";
}

}  // namespace pt
