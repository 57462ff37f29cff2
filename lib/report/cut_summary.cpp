#include "report/cut_summary.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <cmath>

#include "graph/errors.h"
#include "graph/value_bytes_limit.h"

namespace pt {

namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

class JsonReader {
 public:
  explicit JsonReader(std::string source) : source_(std::move(source)) {}

  const Value& field(const Struct& s, const std::string& key, const std::string& path) const {
    const auto it = s.fields().find(key);
    if (it == s.fields().end()) fail(path + key, "is missing");
    return it->second;
  }
  const Struct& object(const Struct& s, const std::string& key, const std::string& path = "") const {
    const Value& v = field(s, key, path);
    if (!v.has_struct_value()) fail(path + key, "is not an object");
    return v.struct_value();
  }
  double number(const Struct& s, const std::string& key, const std::string& path = "") const {
    const Value& v = field(s, key, path);
    if (v.kind_case() != Value::kNumberValue) fail(path + key, "is not a number");
    return v.number_value();
  }
  // A traffic or FLOP total: a finite number, not negative.
  double total(const Struct& s, const std::string& key, const std::string& path) const {
    const double v = number(s, key, path);
    if (!(v >= 0) || !std::isfinite(v)) fail(path + key, "is not a finite count");
    return v;
  }
  // A memory figure of one graph: a whole number of bytes within the graph
  // limit (graph/value_bytes_limit.h), so that sums and deltas of them fit.
  uint64_t bytes(const Struct& s, const std::string& key, const std::string& path = "") const {
    const double v = number(s, key, path);
    if (!(v >= 0 && v <= static_cast<double>(kMaxGraphValueBytes)) || v != std::trunc(v)) {
      fail(path + key, "is not a whole number of bytes up to 2^52");
    }
    return static_cast<uint64_t>(v);
  }
  std::string text(const Struct& s, const std::string& key, const std::string& path = "") const {
    const Value& v = field(s, key, path);
    if (v.kind_case() != Value::kStringValue) fail(path + key, "is not a string");
    return v.string_value();
  }
  std::vector<std::string> strings(const Struct& s, const std::string& key) const {
    const Value& v = field(s, key, "");
    if (!v.has_list_value()) fail(key, "is not a list");
    std::vector<std::string> out;
    for (const auto& item : v.list_value().values()) {
      if (item.kind_case() != Value::kStringValue) fail(key, "holds a non-string");
      out.push_back(item.string_value());
    }
    return out;
  }
  PassTotals pass(const Struct& bandwidth, const std::string& key) const {
    const Struct& p = object(bandwidth, key, "bandwidth.");
    const std::string path = "bandwidth." + key + ".";
    PassTotals t;
    t.bytes_loaded = total(p, "bytes_loaded", path);
    t.bytes_stored = total(p, "bytes_stored", path);
    t.flops = total(p, "flops", path);
    t.seconds = number(p, "seconds", path);
    return t;
  }
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InputError(source_ + ": report field '" + field + "' " + what +
                     " (expected a report written by partition_tool --report-json)");
  }

 private:
  std::string source_;
};

}  // namespace

CutSummary summarize_cut(const ReportModel& m, std::string label) {
  CutSummary c;
  c.label = std::move(label);
  c.graph = m.graph;
  for (const auto& s : m.settings) {
    if (s.changed) c.settings.push_back(s.key + "=" + s.text);
  }
  for (const auto& row : m.saved) c.saved.emplace_back(row.name, row.bytes);
  c.recomputed.assign(m.recomputed.begin(), m.recomputed.end());
  c.saved_bytes = m.saved_bytes;
  c.device = m.bandwidth.device.name;
  const auto totals = [](const PassEstimate& p) { return PassTotals{p.bytes_loaded, p.bytes_stored, p.flops, p.seconds}; };
  c.forward = totals(m.bandwidth.forward);
  c.backward = totals(m.bandwidth.backward);
  if (m.memory) c.peak_bytes = m.memory->peak_bytes;
  if (m.plan) c.plan = m.plan->chosen.description();
  return c;
}

namespace {

CutSummary summary_of(const Struct& root, const std::string& source) {
  const JsonReader r(source);
  CutSummary c;
  c.label = source;
  c.graph = r.text(root, "graph");
  const Struct& settings = r.object(root, "settings");
  for (const auto& key : r.strings(root, "settings_changed")) {
    const auto it = settings.fields().find(key);
    if (it == settings.fields().end()) {
      c.settings.push_back(key + " (edited)");
      continue;
    }
    std::string text;
    google::protobuf::util::MessageToJsonString(it->second, &text);
    if (text.size() >= 2 && text.front() == '"') text = text.substr(1, text.size() - 2);
    c.settings.push_back(key + "=" + text);
  }
  const Value& saved = r.field(root, "saved", "");
  if (!saved.has_list_value()) r.fail("saved", "is not a list");
  for (const auto& item : saved.list_value().values()) {
    if (!item.has_struct_value()) r.fail("saved[]", "is not an object");
    c.saved.emplace_back(r.text(item.struct_value(), "name", "saved[]."),
                         r.bytes(item.struct_value(), "bytes", "saved[]."));
  }
  c.recomputed = r.strings(root, "recomputed");
  c.saved_bytes = r.bytes(root, "saved_bytes");
  const Struct& bandwidth = r.object(root, "bandwidth");
  c.device = r.text(r.object(bandwidth, "device", "bandwidth."), "name", "bandwidth.device.");
  c.forward = r.pass(bandwidth, "forward");
  c.backward = r.pass(bandwidth, "backward");
  const auto mem = root.fields().find("memory");
  if (mem != root.fields().end() && mem->second.has_struct_value()) {
    c.peak_bytes = r.bytes(mem->second.struct_value(), "peak_bytes", "memory.");
  }
  // Reports written under memory_limit name their plan (plan.chosen.knob).
  const auto plan = root.fields().find("plan");
  if (plan != root.fields().end() && plan->second.has_struct_value()) {
    c.plan = r.text(r.object(plan->second.struct_value(), "chosen", "plan."), "knob", "plan.chosen.");
  }
  return c;
}

Struct parse_report(const std::string& json, const std::string& source) {
  Struct root;
  if (!google::protobuf::util::JsonStringToMessage(json, &root).ok()) {
    throw InputError(source + ": not a JSON object (expected a report written by partition_tool --report-json)");
  }
  return root;
}

}  // namespace

CutSummary read_report_json(const std::string& json, const std::string& source) {
  return summary_of(parse_report(json, source), source);
}

std::vector<CutSummary> read_reports_json(const std::string& json, const std::string& source) {
  const Struct root = parse_report(json, source);
  const auto graphs = root.fields().find("graphs");
  if (graphs == root.fields().end()) return {summary_of(root, source)};
  if (!graphs->second.has_list_value()) JsonReader(source).fail("graphs", "is not a list");
  std::vector<CutSummary> out;
  for (const Value& g : graphs->second.list_value().values()) {
    if (!g.has_struct_value()) JsonReader(source).fail("graphs[]", "is not an object");
    out.push_back(summary_of(g.struct_value(), source));
  }
  return out;
}

}  // namespace pt
