#include "report/report_json.h"

#include "partition/ban_reason.h"
#include "report/json_writer.h"

namespace pt {

namespace {

void name_list(JsonWriter& w, std::string_view key, const Graph& g, const std::vector<NodeId>& ids) {
  w.key(key);
  w.begin_array();
  for (NodeId id : ids) w.value(g[id].name);
  w.end_array();
}

uint64_t total_bytes(const Graph& g, const std::vector<NodeId>& ids) {
  uint64_t total = 0;
  for (NodeId id : ids) total += g[id].size_bytes;
  return total;
}

}  // namespace

void write_report_json(std::ostream& out, const Graph& joint, const Partitioned& p, const Settings& s,
                       const std::vector<StageTiming>& timings) {
  const Graph& g = p.prepared.graph;
  const PartitionResult& r = p.result;
  const Extraction& e = r.extraction;
  JsonWriter w(out);
  w.begin_object();
  w.field("graph", joint.message->name());
  w.field("source", joint.source);
  w.key("nodes");
  w.begin_object();
  w.field("input", static_cast<int64_t>(joint.size()));
  w.field("after_prepare", static_cast<int64_t>(g.size()));
  w.field("dead", static_cast<int64_t>(p.prepared.dead.size()));
  w.field("cse_merged", static_cast<int64_t>(p.prepared.merged.size()));
  w.end_object();

  name_list(w, "saved_values", g, e.saved_values);
  name_list(w, "saved_sym_nodes", g, e.saved_sym_nodes);
  w.field("saved_bytes", total_bytes(g, e.fw_saved_outputs()));
  name_list(w, "recomputed", g, e.recomputed);
  name_list(w, "dropped", g, e.dropped);
  w.key("banned");
  w.begin_object();
  for (NodeId id = 0; id < g.size(); ++id) {
    if (r.solution.network.banned[id] != BanReason::None) {
      w.field(g[id].name, ban_reason_detail(r.solution.network.banned[id]));
    }
  }
  w.end_object();
  w.key("must_save_tags");
  w.begin_object();
  for (const auto& [name, why] : p.prepared.must_save) w.field(name, why);
  w.end_object();
  // Exact while it fits 64 bits (always with default settings).
  if (fits_int64(r.solution.cut.value)) w.field("cut_value", static_cast<int64_t>(r.solution.cut.value));
  else w.field("cut_value", to_double(r.solution.cut.value));
  w.key("solves");
  w.begin_array();
  for (Capacity v : r.cut_values) {
    if (fits_int64(v)) w.value(static_cast<int64_t>(v));
    else w.value(to_double(v));
  }
  w.end_array();
  w.key("flow_network");
  w.begin_object();
  w.field("vertices", r.solution.network.used_vertex_count());
  w.field("arcs", r.solution.network.distinct_arc_count());
  w.end_object();
  w.key("settings");
  w.begin_object();
  for (const auto& [k, v] : s.to_map()) w.field(k, v);
  w.end_object();
  w.key("settings_changed");
  w.begin_array();
  for (const auto& k : s.changed_keys()) w.value(k);
  w.end_array();
  w.key("timings");
  w.begin_object();
  for (const auto& t : timings) w.field(t.stage, t.seconds);
  w.end_object();
  w.end_object();
  out << "\n";
}

}  // namespace pt
