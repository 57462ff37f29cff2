#include "report/report_text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "partition/ban_reason.h"
#include "report/human_units.h"

namespace pt {

namespace {

std::string fit(std::string s, size_t width) {
  if (s.size() <= width) return s;
  return s.substr(0, width - 1) + "~";
}

std::string shape_text(const Graph& g, NodeId id) {
  const auto& pn = g.proto_node(id);
  if (!pn.has_val()) return "-";
  if (pn.val().has_sym()) return "sym " + pn.val().sym().expr();
  if (!pn.val().has_tensor()) return "-";
  std::string out = "[";
  const auto& t = pn.val().tensor();
  for (int i = 0; i < t.shape_size(); ++i) out += (i ? "," : "") + std::to_string(t.shape(i));
  return out + "] " + t.dtype();
}

uint64_t total_bytes(const Graph& g, const std::vector<NodeId>& ids) {
  uint64_t total = 0;
  for (NodeId id : ids) total += g[id].size_bytes;
  return total;
}

std::string saved_reason(const Graph& g, const PartitionResult& r, NodeId id) {
  const Node& n = g[id];
  if (n.input_kind == InputKind::Primal) {
    return g.static_lifetime[id] ? "parameter (free to save)" : "graph input";
  }
  if (n.value_kind == ValueKind::Sym) return "symbolic size";
  const BanReason why = r.solution.network.banned[id];
  if (why != BanReason::None) return std::string(ban_reason_detail(why));
  return "cheaper to save than to recompute";
}

}  // namespace

void write_report_text(std::ostream& out, const Graph& joint, const Partitioned& p, const Settings& s,
                       const TextReportOptions& options) {
  const Graph& g = p.prepared.graph;
  const PartitionResult& r = p.result;
  const Extraction& e = r.extraction;
  char line[256];

  out << "partition_tool report: " << joint.message->name() << " (" << joint.source << ")\n";
  std::snprintf(line, sizeof line, "  nodes: %d in the joint graph, %d after dead-code elimination and CSE\n",
                joint.size(), g.size());
  out << line;
  const auto changed = s.changed_keys();
  const auto values = s.to_map();
  out << "  settings: ";
  if (changed.empty()) out << "PyTorch 2.11 defaults";
  for (size_t i = 0; i < changed.size(); ++i) {
    auto it = values.find(changed[i]);
    out << (i ? ", " : "") << changed[i] << (it != values.end() ? "=" + it->second : " (edited)");
  }
  out << "\n\n";

  // What the backward would read if everything it reads were saved.
  std::vector<NodeId> all_read;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (!r.classification.required_fw[id]) continue;
    for (NodeId u : g.users[id]) {
      if (!r.classification.required_fw[u] && g[u].op != OpKind::Output) {
        all_read.push_back(id);
        break;
      }
    }
  }
  const auto saved = e.fw_saved_outputs();
  out << "Summary\n";
  std::snprintf(line, sizeof line, "  saved        %zu values, %s (saving everything the backward reads: %zu values, %s;\n",
                saved.size(), human_bytes(total_bytes(g, saved)).c_str(), all_read.size(),
                human_bytes(total_bytes(g, all_read)).c_str());
  out << line;
  std::snprintf(line, sizeof line, "               saving only the inputs: %s)\n",
                human_bytes(total_bytes(g, r.classification.inputs)).c_str());
  out << line;
  std::snprintf(line, sizeof line, "  recomputed   %zu ops run again in the backward\n", e.recomputed.size());
  out << line;
  std::snprintf(line, sizeof line, "  cut value    %s (%zu solve%s)\n", to_string(r.solution.cut.value).c_str(),
                r.cut_values.size(), r.cut_values.size() == 1 ? "" : "s");
  out << line;
  if (!e.dropped.empty()) {
    std::snprintf(line, sizeof line, "  dropped      %zu chosen values the backward never reads\n", e.dropped.size());
    out << line;
  }

  std::vector<NodeId> by_size = saved;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](NodeId a, NodeId b) { return g[a].size_bytes > g[b].size_bytes; });
  const size_t rows = options.top == 0 ? by_size.size() : std::min(options.top, by_size.size());
  out << "\nLargest saved values";
  if (rows < by_size.size()) out << " (" << rows << " of " << by_size.size() << ")";
  out << "\n";
  std::snprintf(line, sizeof line, "  %-28s %9s  %-24s %-34s\n", "name", "size", "shape dtype", "why saved");
  out << line;
  for (size_t i = 0; i < rows; ++i) {
    const NodeId id = by_size[i];
    std::snprintf(line, sizeof line, "  %-28s %9s  %-24s %-34s\n", fit(g[id].name, 28).c_str(),
                  human_bytes(g[id].size_bytes).c_str(), fit(shape_text(g, id), 24).c_str(),
                  fit(saved_reason(g, r, id), 34).c_str());
    out << line;
  }

  std::map<std::string, int> recomputed_by_op;
  for (NodeId id : e.recomputed) ++recomputed_by_op[g[id].packet];
  if (!recomputed_by_op.empty()) {
    out << "\nRecomputed ops by kind\n";
    for (const auto& [op, count] : recomputed_by_op) {
      std::snprintf(line, sizeof line, "  %-40s %6d\n", fit(op, 40).c_str(), count);
      out << line;
    }
  }
  std::map<std::string, int> bans;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (r.solution.network.banned[id] != BanReason::None) ++bans[std::string(ban_reason_detail(r.solution.network.banned[id]))];
  }
  if (!bans.empty()) {
    out << "\nRecomputation bans by reason\n";
    for (const auto& [why, count] : bans) {
      std::snprintf(line, sizeof line, "  %-60s %6d\n", fit(why, 60).c_str(), count);
      out << line;
    }
  }
}

}  // namespace pt
