#include "report/explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "graph/errors.h"
#include "graph/nearest_name.h"
#include "partition/memory_budget.h"
#include "partition/ban_heuristics.h"
#include "partition/ban_reason.h"
#include "partition/node_weight.h"
#include "graph/human_units.h"
#include "report/json_writer.h"
#include "report/save_reason.h"

namespace pt {

namespace {

std::string quoted_list(const Graph& g, const std::vector<NodeId>& ids, size_t most = 6) {
  std::string out;
  for (size_t i = 0; i < ids.size() && i < most; ++i) out += (i ? ", " : "") + std::string(g[ids[i]].name);
  if (ids.size() > most) out += " and " + std::to_string(ids.size() - most) + " more";
  return out;
}

std::string format_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string placement(const Graph& g, const Classification& c, NodeId id) {
  if (g[id].input_kind == InputKind::Tangent) return "a tangent: an input of the backward";
  if (c.tangent_closure[id]) return "backward only: it depends on a tangent (or must run in the backward)";
  if (c.required_bw[id]) return "backward: a gradient output";
  if (c.required_fw[id]) return "forward: the forward's outputs need it";
  return "unclaimed: neither pass needs it by itself; the backward computes it where it is read";
}

// Why recomputing `id` is banned, with the numbers behind the rule.
std::string ban_text(const Graph& g, const Classification& c, const Settings& s, NodeId id, BanReason why) {
  std::string text(ban_reason_detail(why));
  const Node& n = g[id];
  if (why == BanReason::ReductionOp) {
    uint64_t in_bytes = 0;
    for (NodeId a : n.positional_inputs) in_bytes += g[a].size_bytes;
    text += ": 4 x its size (" + human_bytes(n.size_bytes) + ") < its inputs (" + human_bytes(in_bytes) + ")";
  } else if (why == BanReason::NotInAllowlist) {
    text += ": " + std::string(n.packet) + " is not in recomputable_ops (--set recomputable_ops.add=" + std::string(n.packet) + " allows it)";
  } else if (why == BanReason::TooFar) {
    text += ": dist_from_bw " + std::to_string(c.dist_from_bw[id]) + " > max_dist_from_bw " + format_g(s.max_dist_from_bw);
  } else if (why == BanReason::MaterializedInBackward) {
    for (NodeId u : g.users[id]) {
      if (!c.required_fw[u]) {
        text += ": " + (g[u].op == OpKind::Output ? std::string("the graph output") : "backward node " + std::string(g[u].name)) +
                " reads it and cannot fuse with it";
        break;
      }
    }
  }
  const std::string_view setting = ban_reason_setting(why);
  if (!setting.empty()) text += " [lifted by: " + std::string(setting) + "]";
  return text;
}

// The ban fact. A node the plan recomputes although a ban rule names it
// says which rule won: the memory budget's stages that save only the
// inputs, or its knapsack, outrank the bans (never a random-seed ban).
std::string ban_fact(const Graph& g, const Classification& c, const Settings& s, const PartitionResult& r, NodeId id,
                     BanReason why, bool recomputed) {
  if (why != BanReason::None) {
    std::string text = ban_text(g, c, s, id, why);
    if (recomputed && r.budget) {
      text += "; the memory budget wins over this ban: its stage " + r.budget->stage +
              " recomputes what it does not save [activation_memory_budget]";
    }
    return text;
  }
  if (recomputed && r.budget && r.budget->stage == "knapsack" && r.budget->solves.size() >= 2) {
    const FlowNetwork& aggressive = r.budget->solves[r.budget->solves.size() - 2].network;
    const BanReason lifted = aggressive.banned.empty() ? BanReason::None : aggressive.banned[id];
    if (lifted != BanReason::None) {
      return "lifted by the memory budget: " + ban_text(g, c, s, id, lifted) +
             ", but the knapsack chose to recompute it and wins over this ban [activation_memory_budget]";
    }
  }
  return "none: the cut may recompute it";
}

std::string capacity_text(const Graph& g, const Classification& c, const Settings& s, const FlowNetwork& net,
                          NodeId id) {
  const std::optional<Capacity> weight = net.weight_arc.empty() ? std::nullopt : net.weight(id);
  if (!weight) {
    return c.tangent_closure[id] ? "no X_in -> X_out edge: it is tied to the sink (runs in the backward)"
                                 : "no X_in -> X_out edge";
  }
  const Capacity w = *weight;
  if (w == kInfinite) return "infinite: it cannot be saved (not a tensor, or a view under recompute_views)";
  std::string text = to_string(w);
  const Node& n = g[id];
  if (n.value_kind == ValueKind::Tensor && n.op != OpKind::Placeholder && w > 0) {
    const double d = std::max(std::min(static_cast<double>(c.dist_from_bw[id]), s.dist_from_bw_cap), 1.0);
    text += " = trunc(" + std::to_string(n.size_bytes) + " B x " + format_g(s.dist_from_bw_base) + "^" + format_g(d) +
            ")";
    if (!is_materialized(g, id, s.op_classes)) text += " x 2 (not materialized: every user fuses with it)";
    text += " [scaled by: dist_from_bw_base, dist_from_bw_cap]";
  }
  return text;
}

// What explaining one node needs besides the partition: the saved and
// dropped sets, and search marks that are all clear between searches, so
// that explaining every node costs what each search visits (explain_each).
struct Scratch {
  Flags saved, dropped;
  std::vector<NodeId> parent;  // path_to_backward's, kNoNode between searches
  Flags seen;                  // recomputed_from's, false between searches
  std::vector<NodeId> touched;

  Scratch(const Graph& g, const Extraction& e)
      : saved(static_cast<size_t>(g.size()), false), dropped(static_cast<size_t>(g.size()), false),
        parent(static_cast<size_t>(g.size()), kNoNode), seen(static_cast<size_t>(g.size()), false) {
    for (NodeId id : e.saved_values) saved[id] = true;
    for (NodeId id : e.saved_sym_nodes) saved[id] = true;
    for (NodeId id : e.dropped) dropped[id] = true;
  }
};

// Shortest path from `id` along users inside the backward graph to a node
// that only the backward runs.
std::vector<NodeId> path_to_backward(const Graph& g, const Extraction& e, NodeId id, Scratch& scratch) {
  std::vector<NodeId>& parent = scratch.parent;
  std::vector<NodeId> queue{id}, path;
  parent[id] = id;
  for (size_t head = 0; head < queue.size() && path.empty(); ++head) {
    const NodeId x = queue[head];
    for (NodeId u : g.users[x]) {
      if (parent[u] != kNoNode || !e.backward.keep[u] || g[u].op == OpKind::Output) continue;
      parent[u] = x;
      queue.push_back(u);
      if (!e.forward.keep[u]) {
        path.push_back(u);
        for (NodeId v = x; v != id; v = parent[v]) path.push_back(v);
        std::reverse(path.begin(), path.end());
        break;
      }
    }
  }
  for (NodeId v : queue) parent[v] = kNoNode;
  return path;
}

// The backward inputs a recomputed node is computed from.
std::vector<NodeId> recomputed_from(const Graph& g, const Extraction& e, NodeId id, Scratch& scratch) {
  Flags& seen = scratch.seen;
  std::vector<NodeId>& touched = scratch.touched;
  std::vector<NodeId> stack{id}, out;
  touched.assign(1, id);
  seen[id] = true;
  while (!stack.empty()) {
    const NodeId x = stack.back();
    stack.pop_back();
    for (NodeId a : g[x].inputs) {
      if (seen[a] || !e.backward.keep[a]) continue;
      seen[a] = true;
      touched.push_back(a);
      if (e.backward.is_input[a]) out.push_back(a);
      else stack.push_back(a);
    }
  }
  for (NodeId v : touched) seen[v] = false;
  std::sort(out.begin(), out.end());
  return out;
}

Explanation explain_prepared(const Partitioned& p, const Settings& s, NodeId id, Scratch& scratch);

}  // namespace

Explanation explain_node(const Graph& joint, const Partitioned& p, const Settings& s, std::string_view name) {
  const Graph& g = p.prepared.graph;
  const NodeId id = g.find(name);
  if (id != kNoNode) {
    Scratch scratch(g, p.result.extraction);
    return explain_prepared(p, s, id, scratch);
  }
  if (joint.find(name) == kNoNode) {
    throw InputError(joint.source + ": no node named '" + std::string(name) + "'" +
                     did_you_mean(nearest_node_name(joint, name)));
  }
  Explanation x;
  x.node = std::string(name);
  for (const auto& [dup, kept] : p.prepared.merged) {
    if (dup == name) {
      x.status = "merged";
      x.summary = "merged into " + kept + " by CSE (the same op on the same inputs); explain " + kept +
                  " instead [turned off by: cse=false]";
      return x;
    }
  }
  x.status = "removed";
  x.summary = "removed by dead-code elimination: nothing reads it and it has no side effects";
  return x;
}

void explain_each(const Partitioned& p, const Settings& s, const std::function<void(const Explanation&)>& sink) {
  const Graph& g = p.prepared.graph;
  Scratch scratch(g, p.result.extraction);
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].op == OpKind::Output) continue;
    sink(explain_prepared(p, s, id, scratch));
  }
}

namespace {

Explanation explain_prepared(const Partitioned& p, const Settings& s, NodeId id, Scratch& scratch) {
  const Graph& g = p.prepared.graph;
  Explanation x;
  x.node = std::string(g[id].name);
  const std::string_view name = g[id].name;
  const PartitionResult& r = p.result;
  const Classification& c = r.classification;
  const Extraction& e = r.extraction;
  const FlowNetwork& net = r.solution.network;
  const bool saved = scratch.saved[id];
  const bool in_fw = e.forward.keep[id], in_bw = e.backward.keep[id];
  const bool dropped = scratch.dropped[id];
  if (saved) {
    x.status = "saved";
    x.summary = "saved by the forward for the backward (" + human_bytes(g[id].size_bytes) + "): " +
                std::string(save_reason(g, r, id).text);
  } else if (in_fw && in_bw && g[id].op == OpKind::CallFunction) {
    x.status = "recomputed";
    const auto from = recomputed_from(g, e, id, scratch);
    x.summary = from.empty() ? "recomputed in the backward, from no saved value"
                             : "recomputed in the backward from " + quoted_list(g, from);
  } else if (in_bw && !in_fw) {
    x.status = "backward-only";
    x.summary = "runs in the backward only";
  } else if (in_fw && !in_bw) {
    x.status = "forward-only";
    x.summary = c.dist_from_bw[id] >= kFarFromBackward ? "runs in the forward only: the backward never reads it"
                                                       : "runs in the forward only: the backward reads what it "
                                                         "feeds, not it";
  } else {
    x.status = "not saved";
    x.summary = dropped ? "chosen by the cut but never read by the backward, so not saved"
                        : "in neither extracted graph";
  }

  x.facts.push_back({"op", g[id].target.empty() ? std::string("-") : std::string(g[id].target)});
  x.facts.push_back({"placement", placement(g, c, id)});
  const BanReason why = net.banned.empty() ? BanReason::None : net.banned[id];
  if (c.tangent_closure[id]) {
    x.facts.push_back({"ban", "not applicable: it runs in the backward, where its inputs are"});
  } else if (r.saved_set_given) {
    // A memory-limit plan beyond the knobs: no flow network, so no bans or
    // capacities to tell; the planner never recomputes what may not be.
    x.facts.push_back({"ban", "not applicable: the memory-limit plan chose its saved set without a cut"});
  } else {
    x.facts.push_back({"ban", ban_fact(g, c, s, r, id, why, x.status == "recomputed")});
  }
  if (x.status == "recomputed" && recompute_changes_random_numbers(g, id, s.op_classes)) {
    x.facts.push_back({"random", "recomputing it draws other random numbers than the forward drew: the training "
                                 "changes (ban_recompute_rng_seeds=false)"});
  }
  for (const auto& [tagged, reason] : p.prepared.must_save) {
    if (tagged == name) x.facts.push_back({"must_save", reason});
  }
  if (!r.saved_set_given) x.facts.push_back({"capacity", capacity_text(g, c, s, net, id)});
  const int64_t dist = c.dist_from_bw[id];
  x.facts.push_back({"dist_from_bw", dist >= kFarFromBackward ? "1e9 (the backward never reads it)"
                                                              : std::to_string(dist)});
  if (in_bw && in_fw) {
    const auto path = path_to_backward(g, e, id, scratch);
    if (!path.empty()) {
      std::string chain(g[id].name);
      for (NodeId v : path) chain += " -> " + std::string(g[v].name);
      x.facts.push_back({"read by", chain + " (backward)"});
    }
  }
  return x;
}

}  // namespace

void write_explanation_text(std::ostream& out, const Explanation& x) {
  out << x.node << ": " << x.status << "\n";
  out << wrap_text(x.summary, 100, "  ", "  ");
  for (const auto& f : x.facts) {
    char label[32];
    std::snprintf(label, sizeof label, "  %-13s ", f.label.c_str());
    out << wrap_text(f.text, 100, label, std::string(16, ' '));
  }
}

void write_explanation_json(std::ostream& out, const Explanation& x) {
  JsonWriter w(out);
  w.begin_object();
  w.field("schema_version", kJsonSchemaVersion);
  w.field("node", x.node);
  w.field("status", x.status);
  w.field("summary", x.summary);
  w.key("facts");
  w.begin_array();
  for (const auto& f : x.facts) {
    w.begin_object();
    w.field("label", f.label);
    w.field("text", f.text);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out << "\n";
}

}  // namespace pt
