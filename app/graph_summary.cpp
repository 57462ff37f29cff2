#include "graph_summary.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "cli_common.h"
#include "report/json_writer.h"
#include "graph/human_units.h"

namespace pt::app {

namespace {

uint64_t tensor_bytes_of(const Node& n) { return n.value_kind == ValueKind::Tensor ? n.size_bytes : 0; }

std::vector<CountRow> count_ops(const Graph& g) {
  std::vector<CountRow> rows{{"placeholder"}, {"call_function"}, {"get_attr"}, {"output"}};
  for (const Node& n : g.nodes) {
    CountRow& r = rows[static_cast<size_t>(n.op)];
    ++r.count;
    r.bytes += tensor_bytes_of(n);
  }
  return rows;
}

std::vector<CountRow> count_tags(const Graph& g) {
  // Indexed by PartitionerTag; untagged (None) listed last.
  std::vector<CountRow> rows{{"untagged"}, {"is_forward"}, {"is_backward"}, {"must_be_in_forward"},
                             {"must_be_in_backward"}};
  for (const Node& n : g.nodes) {
    CountRow& r = rows[static_cast<size_t>(n.tag)];
    ++r.count;
    r.bytes += tensor_bytes_of(n);
  }
  std::rotate(rows.begin(), rows.begin() + 1, rows.end());
  return rows;
}

std::vector<CountRow> count_packets(const Graph& g, size_t* total) {
  std::unordered_map<std::string, size_t> index;
  std::vector<CountRow> rows;
  for (const Node& n : g.nodes) {
    if (n.op != OpKind::CallFunction) continue;
    auto [it, fresh] = index.emplace(n.packet, rows.size());
    if (fresh) rows.push_back({std::string(n.packet)});
    ++rows[it->second].count;
    rows[it->second].bytes += tensor_bytes_of(n);
  }
  std::sort(rows.begin(), rows.end(), [](const CountRow& a, const CountRow& b) {
    return a.count != b.count ? a.count > b.count : a.name < b.name;
  });
  *total = rows.size();
  return rows;
}

void count_inputs(const Graph& g, GraphSummary& s) {
  // Indexed by InputKind minus one (NotInput is not a row).
  s.by_input = {{"primal"}, {"tangent"}, {"forward seed"}, {"backward seed"}};
  s.parameters = {"parameter/buffer"};
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g[id];
    if (n.input_kind == InputKind::NotInput) continue;
    CountRow& r = s.by_input[static_cast<size_t>(n.input_kind) - 1];
    ++r.count;
    r.bytes += tensor_bytes_of(n);
    if (g.static_lifetime[id]) {
      ++s.parameters.count;
      s.parameters.bytes += tensor_bytes_of(n);
    }
  }
}

std::vector<TensorRow> largest_tensors(const Graph& g, size_t top, int64_t* count) {
  std::vector<NodeId> ids;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].value_kind == ValueKind::Tensor) ids.push_back(id);
  }
  *count = static_cast<int64_t>(ids.size());
  const size_t shown = top == 0 ? ids.size() : std::min(top, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(shown), ids.end(),
                    [&](NodeId a, NodeId b) {
                      return g[a].size_bytes != g[b].size_bytes ? g[a].size_bytes > g[b].size_bytes : a < b;
                    });
  std::vector<TensorRow> rows;
  for (size_t k = 0; k < shown; ++k) {
    const proto::Node& pn = g.record(ids[k]);
    const auto& t = pn.val().tensor();
    rows.push_back({std::string(pn.name()), {t.shape().begin(), t.shape().end()}, std::string(t.dtype()),
                    g[ids[k]].size_bytes, std::string(pn.module_path())});
  }
  return rows;
}

std::vector<std::string> validation_notes(const Graph& g, const GraphSummary& s) {
  std::vector<std::string> notes;
  if (s.by_input[1].count == 0) notes.push_back("no tangents: nothing flows back, the backward is empty");
  std::vector<std::string> unused;
  int64_t no_val = 0;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].op == OpKind::Placeholder && g.users[id].empty()) unused.push_back(std::string(g[id].name));
    if (g[id].op == OpKind::CallFunction && g[id].value_kind == ValueKind::Absent) ++no_val;
  }
  if (!unused.empty()) {
    std::string names;
    for (size_t k = 0; k < unused.size() && k < 5; ++k) names += (k ? ", " : "") + unused[k];
    if (unused.size() > 5) names += fmt::format(" and {} more", unused.size() - 5);
    notes.push_back(fmt::format("{} placeholder(s) unused: {}", unused.size(), names));
  }
  if (no_val > 0) notes.push_back(fmt::format("{} call_function node(s) have no val (their size counts 0)", no_val));
  return notes;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

// "(10 of 25 shown; 15 more, --top 0 shows all)" or "(all 25)".
std::string shown_text(size_t shown, size_t total) {
  if (shown >= total) return fmt::format("(all {})", total);
  return fmt::format("({} of {} shown; {} more not shown, --top 0 shows all)", shown, total, total - shown);
}

}  // namespace

GraphSummary summarize(const Graph& g, const std::string& format, size_t top) {
  GraphSummary s;
  s.source = g.source;
  s.format = format;
  s.name = g.header->name();
  s.metadata = {g.header->metadata().begin(), g.header->metadata().end()};
  s.nodes = g.size();
  s.top = top;
  s.by_op = count_ops(g);
  s.by_packet = count_packets(g, &s.packets_total);
  if (top != 0 && s.by_packet.size() > top) s.by_packet.resize(top);
  s.by_tag = count_tags(g);
  count_inputs(g, s);
  const int64_t outputs = static_cast<int64_t>(g.outputs.size());
  s.forward_outputs = g.num_fwd_outputs;
  s.gradients = outputs - g.num_fwd_outputs;
  for (int64_t k = g.num_fwd_outputs; k < outputs; ++k) s.none_gradients += g.outputs[k] == kNoNode;
  s.largest = largest_tensors(g, top, &s.tensor_values);
  for (const Node& n : g.nodes) s.tensor_bytes += tensor_bytes_of(n);
  s.notes = validation_notes(g, s);
  return s;
}

void print_summary_text(std::ostream& out, const GraphSummary& s) {
  fmt::print(out, "graph '{}' from {} ({})\n", s.name, s.source, s.format);
  if (!s.metadata.empty()) {
    std::vector<std::string> kv;
    for (const auto& [k, v] : s.metadata) kv.push_back(k + "=" + v);
    fmt::print(out, "metadata: {}\n", fmt::join(kv, ", "));
  }
  fmt::print(out, "validation: ok{}\n", s.notes.empty() ? "" : fmt::format(", {} note(s):", s.notes.size()));
  for (const auto& note : s.notes) fmt::print(out, "  - {}\n", note);
  fmt::print(out, "nodes: {} ({} placeholder, {} call_function, {} get_attr, {} output)\n", s.nodes,
             s.by_op[0].count, s.by_op[1].count, s.by_op[2].count, s.by_op[3].count);
  fmt::print(out, "inputs: {} primal ({} parameter/buffer, {}), {} tangent, {} forward seed, {} backward seed\n",
             s.by_input[0].count, s.parameters.count, human_bytes(s.parameters.bytes), s.by_input[1].count,
             s.by_input[2].count, s.by_input[3].count);
  fmt::print(out, "outputs: {} forward, {} gradient ({} none)\n", s.forward_outputs, s.gradients, s.none_gradients);
  fmt::print(out, "tensors: {} values, {} in total\n", s.tensor_values, human_bytes(s.tensor_bytes));
  fmt::print(out, "by partitioner_tag (forward/backward split):\n");
  for (const auto& r : s.by_tag) {
    fmt::print(out, "  {:<21} {:>7} nodes  {:>9}\n", r.name, r.count, human_bytes(r.bytes));
  }
  fmt::print(out, "call_function ops by target packet {}:\n", shown_text(s.by_packet.size(), s.packets_total));
  for (const auto& r : s.by_packet) fmt::print(out, "  {:>7}  {}\n", r.count, r.name);
  fmt::print(out, "largest tensors {}:\n", shown_text(s.largest.size(), static_cast<size_t>(s.tensor_values)));
  for (const auto& t : s.largest) {
    fmt::print(out, "  {:>9}  {}  {} {}  {}\n", human_bytes(t.bytes), t.name, shape_text(t.shape), t.dtype,
               t.module_path.empty() ? "-" : t.module_path);
  }
}

namespace {

void write_rows(JsonWriter& w, const std::vector<CountRow>& rows) {
  w.begin_array();
  for (const auto& r : rows) {
    w.begin_object();
    w.field("name", r.name);
    w.field("count", r.count);
    w.field("tensor_bytes", r.bytes);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

void print_summary_json(std::ostream& out, const GraphSummary& s) {
  JsonWriter w(out);
  w.begin_object();
  w.field("schema_version", kJsonSchemaVersion);
  w.field("source", s.source);
  w.field("format", s.format);
  w.field("name", s.name);
  w.key("metadata");
  w.begin_object();
  for (const auto& [k, v] : s.metadata) w.field(k, v);
  w.end_object();
  w.key("validation");
  w.begin_object();
  w.field("ok", true);
  w.key("notes");
  w.begin_array();
  for (const auto& n : s.notes) w.value(n);
  w.end_array();
  w.end_object();
  w.field("nodes", s.nodes);
  w.key("by_op");
  write_rows(w, s.by_op);
  w.key("by_input");
  write_rows(w, s.by_input);
  w.key("parameters");
  write_rows(w, {s.parameters});
  w.key("outputs");
  w.begin_object();
  w.field("forward", s.forward_outputs);
  w.field("gradients", s.gradients);
  w.field("none_gradients", s.none_gradients);
  w.end_object();
  w.field("tensor_values", s.tensor_values);
  w.field("tensor_bytes", s.tensor_bytes);
  w.key("by_partitioner_tag");
  write_rows(w, s.by_tag);
  w.field("packets_total", static_cast<uint64_t>(s.packets_total));
  w.field("packets_not_shown", static_cast<uint64_t>(s.packets_total - s.by_packet.size()));
  w.key("by_packet");
  write_rows(w, s.by_packet);
  w.field("largest_not_shown", static_cast<uint64_t>(static_cast<size_t>(s.tensor_values) - s.largest.size()));
  w.key("largest_tensors");
  w.begin_array();
  for (const auto& t : s.largest) {
    w.begin_object();
    w.field("name", t.name);
    w.key("shape");
    w.begin_array();
    for (int64_t d : t.shape) w.value(d);
    w.end_array();
    w.field("dtype", t.dtype);
    w.field("bytes", t.bytes);
    w.field("module_path", t.module_path);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace pt::app
