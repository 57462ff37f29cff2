#include "report/dot.h"

#include <algorithm>

#include "graph/errors.h"
#include "graph/nearest_name.h"
#include "graph/human_units.h"
#include "report/save_reason.h"

namespace pt {

namespace {

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string node_id(NodeId id) { return "n" + std::to_string(id); }

std::string value_text(const Graph& g, NodeId id) {
  const auto& pn = g.record(id);
  if (pn.val().has_tensor()) {
    const auto& t = pn.val().tensor();
    return shape_text({t.shape().begin(), t.shape().end()}) + " " + std::string(t.dtype()) + " " +
           human_bytes(g[id].size_bytes);
  }
  if (pn.val().has_sym()) return "sym " + std::string(pn.val().sym().expr());
  return "";
}

enum class Kind { Input, Saved, Recomputed, Forward, Backward };

struct Style {
  const char* shape;
  const char* style;
  const char* fill;
  const char* legend;
};

Style style_of(Kind k) {
  switch (k) {
    case Kind::Input: return {"ellipse", "filled", "#ffffff", "graph input"};
    case Kind::Saved: return {"box", "filled,bold", "#f4a261", "saved for the backward"};
    case Kind::Recomputed: return {"box", "filled,dashed", "#a8dadc", "recomputed in the backward"};
    case Kind::Forward: return {"box", "filled", "#e9ecef", "forward only"};
    case Kind::Backward: return {"box", "filled", "#cdb4db", "backward only"};
  }
  return {"box", "filled", "#ffffff", ""};
}

void write_legend(std::ostream& out) {
  out << "  subgraph cluster_legend {\n    label=\"legend\"; fontsize=12; color=\"#888888\";\n";
  const Kind kinds[] = {Kind::Input, Kind::Saved, Kind::Recomputed, Kind::Forward, Kind::Backward};
  for (Kind k : kinds) {
    const Style s = style_of(k);
    out << "    legend_" << static_cast<int>(k) << " [label=\"" << s.legend << "\", shape=" << s.shape << ", style=\""
        << s.style << "\", fillcolor=\"" << s.fill << "\"];\n";
  }
  out << "    legend_banned [label=\"red border: recomputing it is banned\", shape=box, color=red, penwidth=2];\n"
         "    legend_cut_from [label=\"saved value\", shape=box, style=\"filled,bold\", fillcolor=\"#f4a261\"];\n"
         "    legend_cut_to [label=\"backward reader\", shape=box, style=filled, fillcolor=\"#cdb4db\"];\n"
         "    legend_cut_from -> legend_cut_to [label=\"the cut\", color=red, penwidth=3];\n"
         "  }\n";
}

}  // namespace

DotSelection select_dot_nodes(const Graph& g, const std::string& around, int depth, size_t max_nodes) {
  DotSelection sel;
  sel.depth = depth;
  if (around.empty()) {
    for (NodeId id = 0; id < g.size(); ++id) {
      if (g[id].op != OpKind::Output) sel.nodes.push_back(id);
    }
    if (sel.nodes.size() > max_nodes) {
      throw InputError(g.source + ": " + std::to_string(sel.nodes.size()) + " nodes is more than --max-drawn " +
                       std::to_string(max_nodes) + " can show readably; draw one neighbourhood with --around NODE " +
                       "--depth N (e.g. --around " + std::string(g[sel.nodes.back()].name) + " --depth 2), or raise --max-drawn");
    }
    return sel;
  }
  sel.around = g.find(around);
  if (sel.around == kNoNode) {
    throw InputError(g.source + ": --around '" + around + "': no such node" + did_you_mean(nearest_node_name(g, around)));
  }
  std::vector<int> dist(static_cast<size_t>(g.size()), -1);
  std::vector<NodeId> queue{sel.around};
  dist[sel.around] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    const NodeId x = queue[head];
    if (dist[x] >= depth) continue;
    auto visit = [&](NodeId y) {
      if (dist[y] < 0 && g[y].op != OpKind::Output) {
        dist[y] = dist[x] + 1;
        queue.push_back(y);
      }
    };
    for (NodeId y : g[x].inputs) visit(y);
    for (NodeId y : g.users[x]) visit(y);
  }
  sel.nodes = queue;
  std::sort(sel.nodes.begin(), sel.nodes.end());
  if (sel.nodes.size() > max_nodes) {
    throw InputError(g.source + ": the neighbourhood of " + around + " at depth " + std::to_string(depth) + " has " +
                     std::to_string(sel.nodes.size()) + " nodes, more than --max-drawn " + std::to_string(max_nodes) +
                     "; lower --depth or raise --max-drawn");
  }
  return sel;
}

void write_dot(std::ostream& out, const Graph& g, const PartitionResult& r, const DotSelection& sel) {
  const Extraction& e = r.extraction;
  Flags saved(static_cast<size_t>(g.size()), false), shown(static_cast<size_t>(g.size()), false);
  for (NodeId id : e.fw_saved_outputs()) saved[id] = true;
  for (NodeId id : sel.nodes) shown[id] = true;

  out << "digraph partition {\n";
  out << "  label=\"" << escaped(g.header->name());
  if (sel.around != kNoNode) out << ": " << sel.nodes.size() << " nodes within " << sel.depth << " of " << escaped(std::string(g[sel.around].name));
  out << "\"; labelloc=t; rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
         "  edge [color=\"#555555\", arrowsize=0.6];\n";
  write_legend(out);
  for (NodeId id : sel.nodes) {
    const Node& n = g[id];
    Kind k = Kind::Forward;
    if (n.op == OpKind::Placeholder) k = Kind::Input;
    if (e.forward.keep[id] && e.backward.keep[id] && n.op == OpKind::CallFunction) k = Kind::Recomputed;
    if (!e.forward.keep[id] && (e.backward.keep[id] || r.classification.required_bw[id])) k = Kind::Backward;
    if (saved[id]) k = Kind::Saved;
    const Style s = style_of(k);
    std::string label = std::string(n.name) + "\n" + (n.op == OpKind::CallFunction ? std::string(n.packet) + "\n" : "") + value_text(g, id);
    const BanReason why = r.solution.network.banned.empty() ? BanReason::None : r.solution.network.banned[id];
    if (why != BanReason::None) (label += "\n") += ban_label(why);
    size_t hidden = 0;
    for (NodeId y : n.inputs) hidden += !shown[y];
    for (NodeId y : g.users[id]) hidden += !shown[y] && g[y].op != OpKind::Output;
    if (hidden > 0) label += "\n(+" + std::to_string(hidden) + " edges not shown)";
    out << "  " << node_id(id) << " [label=\"" << escaped(label) << "\", shape=" << s.shape << ", style=\"" << s.style
        << "\", fillcolor=\"" << s.fill << "\"";
    if (why != BanReason::None) out << ", color=red, penwidth=2";
    if (id == sel.around) out << ", peripheries=2";
    out << "];\n";
  }
  for (NodeId id : sel.nodes) {
    std::vector<NodeId> drawn;
    for (NodeId x : g[id].inputs) {
      if (!shown[x] || std::find(drawn.begin(), drawn.end(), x) != drawn.end()) continue;
      drawn.push_back(x);
      // The cut: a saved value read by a node that runs in the backward.
      const bool cut = saved[x] && e.backward.keep[id] && !e.backward.is_input[id];
      out << "  " << node_id(x) << " -> " << node_id(id);
      if (cut) out << " [color=red, penwidth=3, label=\"cut: " << human_bytes(g[x].size_bytes) << "\", fontcolor=red]";
      out << ";\n";
    }
  }
  out << "}\n";
}

}  // namespace pt
