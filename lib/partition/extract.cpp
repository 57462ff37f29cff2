#include "partition/extract.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "graph/errors.h"
#include "graph/printable.h"

namespace pt {

namespace {

// Symbol names are a lowercase prefix and a number (s17, u3, zuf0, ps2), as
// PyTorch's symbolic shapes create them; function names in expressions
// (Max, FloorDiv, floor) never match.
void collect_symbols(std::string_view expr, std::set<std::string>& out) {
  size_t i = 0;
  while (i < expr.size()) {
    if (std::isalpha(static_cast<unsigned char>(expr[i])) || expr[i] == '_') {
      size_t j = i;
      while (j < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[j])) || expr[j] == '_')) ++j;
      const std::string word(expr.substr(i, j - i));
      size_t k = 0;
      while (k < word.size() && std::islower(static_cast<unsigned char>(word[k]))) ++k;
      const bool is_symbol = k > 0 && k < word.size() &&
                             std::all_of(word.begin() + static_cast<long>(k), word.end(),
                                         [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
      if (is_symbol) out.insert(word);
      i = j;
    } else {
      ++i;
    }
  }
}

void tensor_symbols(const proto::TensorMeta& t, std::set<std::string>& out) {
  for (const std::string& e : t.shape_expr()) collect_symbols(e, out);
  for (const std::string& e : t.stride_expr()) collect_symbols(e, out);
  collect_symbols(t.storage_offset_expr(), out);
}

// The symbol a placeholder binds: its value is exactly one symbol.
std::string bound_symbol(const Graph& g, NodeId id) {
  const Node& n = g[id];
  if (n.op != OpKind::Placeholder || n.value_kind != ValueKind::Sym || n.sym_kind != SymKind::Int) return "";
  const proto::Node pn = g.record(id);
  const std::string_view expr = pn.val().sym().expr();
  std::set<std::string> syms;
  collect_symbols(expr, syms);
  return syms.size() == 1 && *syms.begin() == expr ? std::string(expr) : "";
}

}  // namespace

std::vector<std::string> free_symbols(const Graph& g, NodeId id) {
  std::set<std::string> out;
  const auto& pn = g.record(id);
  if (!pn.has_val()) return {};
  const auto& v = pn.val();
  if (v.has_tensor()) tensor_symbols(v.tensor(), out);
  if (v.has_sym()) collect_symbols(v.sym().expr(), out);
  if (v.has_tuple()) {
    for (const proto::Value& item : v.tuple().items()) {
      if (item.has_tensor()) tensor_symbols(item.tensor(), out);
      if (item.has_sym()) collect_symbols(item.sym().expr(), out);
    }
  }
  return {out.begin(), out.end()};  // sorted by name, as PyTorch sorts them
}

std::vector<NodeId> Extraction::fw_saved_outputs() const {
  std::vector<NodeId> out = saved_values;
  out.insert(out.end(), saved_sym_nodes.begin(), saved_sym_nodes.end());
  return out;
}

std::vector<NodeId> Extraction::bw_inputs() const {
  std::vector<NodeId> out = saved_sym_nodes;
  out.insert(out.end(), saved_values.begin(), saved_values.end());
  out.insert(out.end(), grad_inputs.begin(), grad_inputs.end());
  return out;
}

Extraction extract_partition(const Graph& g, const Classification& c, const std::vector<NodeId>& chosen) {
  std::vector<NodeId> values, sym_nodes;
  for (NodeId id : chosen) (g[id].value_kind == ValueKind::Sym ? sym_nodes : values).push_back(id);
  return extract_partition(g, c, values, sym_nodes);
}

Extraction extract_partition(const Graph& g, const Classification& c, const std::vector<NodeId>& values,
                             const std::vector<NodeId>& sym_nodes_in) {
  Extraction e;
  std::vector<NodeId> seeds;
  for (NodeId id = 0; id < g.size(); ++id) {
    const InputKind kind = g[id].input_kind;
    if (kind == InputKind::Tangent) e.grad_inputs.push_back(id);
    else if (kind == InputKind::BwdSeed) seeds.push_back(id);
  }
  e.grad_inputs.insert(e.grad_inputs.end(), seeds.begin(), seeds.end());
  e.saved_values = values;
  std::vector<NodeId> sym_nodes = sym_nodes_in;
  e.saved_sym_nodes = sym_nodes;

  // First backward extraction: which saved values does it read at all?
  auto check_outputs = [&](const Subgraph& s) {
    if (s.invalid_output) {
      throw InfeasibleError(g.source + ": node '" + printable(g[*s.invalid_output].name) +
                            "': gradient output cannot be computed from the saved values and tangents");
    }
  };
  // The final forward needs the final saved lists, which this first
  // backward extraction decides (saved values it never reads are dropped,
  // symbol bindings added). Mostly they are the chosen lists as they are:
  // then the first backward extraction is the final one.
  Subgraph first = extract_subgraph(g, e.bw_inputs(), c.bwd_outputs, Pass::Backward);
  check_outputs(first);
  auto read_by_backward = [&](NodeId id) {
    if (g[id].op == OpKind::Output) return false;
    for (NodeId u : g.users[id]) {
      if (first.keep[u] && !first.is_input[u]) return true;
    }
    // A saved value that is itself a gradient output is read by the output node.
    return std::find(c.bwd_outputs.begin(), c.bwd_outputs.end(), id) != c.bwd_outputs.end();
  };
  auto drop_unread = [&](std::vector<NodeId>& list) {
    std::vector<NodeId> kept;
    for (NodeId id : list) {
      if (read_by_backward(id)) kept.push_back(id);
      else e.dropped.push_back(id);
    }
    list = std::move(kept);
  };
  drop_unread(e.saved_values);
  drop_unread(sym_nodes);
  std::sort(e.dropped.begin(), e.dropped.end());

  // Bind every symbol the backward's inputs mention.
  std::map<std::string, NodeId> binding;  // symbol -> first placeholder binding it
  for (NodeId id = 0; id < g.size(); ++id) {
    const std::string s = bound_symbol(g, id);
    if (!s.empty()) binding.emplace(s, id);
  }
  std::set<std::string> bound;
  std::vector<NodeId> bindings, derived;
  for (NodeId id : sym_nodes) {
    const std::string s = bound_symbol(g, id);
    if (!s.empty()) {
      bound.insert(s);
      bindings.push_back(id);
    } else {
      derived.push_back(id);
    }
  }
  std::vector<NodeId> prospective = derived;
  prospective.insert(prospective.end(), e.saved_values.begin(), e.saved_values.end());
  for (NodeId id : e.grad_inputs) {
    if (g[id].input_kind == InputKind::Tangent) prospective.push_back(id);
  }
  // A symbol only adds a binding that a placeholder makes: with none (a
  // graph of static shapes) no input's symbols need reading (at 10^6 nodes
  // the saved values' records were each decoded for nothing).
  if (binding.empty()) prospective.clear();
  for (NodeId id : prospective) {
    std::vector<std::string> fresh;
    for (const auto& s : free_symbols(g, id)) {
      if (!bound.count(s)) fresh.push_back(s);
    }
    for (const auto& s : fresh) {
      auto it = binding.find(s);
      if (it != binding.end()) bindings.push_back(it->second);
    }
    bound.insert(fresh.begin(), fresh.end());
  }
  e.saved_sym_nodes = bindings;
  e.saved_sym_nodes.insert(e.saved_sym_nodes.end(), derived.begin(), derived.end());

  // Final graphs.
  std::vector<NodeId> fw_outputs = c.fwd_outputs;
  const auto saved_out = e.fw_saved_outputs();
  fw_outputs.insert(fw_outputs.end(), saved_out.begin(), saved_out.end());
  // Checked in this order: the forward first.
  if (e.saved_values == values && e.saved_sym_nodes == sym_nodes_in) {
    e.backward = std::move(first);  // the backward's inputs are the first extraction's
  } else {
    e.backward = extract_subgraph(g, e.bw_inputs(), c.bwd_outputs, Pass::Backward);
  }
  e.forward = extract_subgraph(g, c.inputs, fw_outputs, Pass::Forward);
  if (e.forward.invalid_output) {
    throw InfeasibleError(g.source + ": node '" + printable(g[*e.forward.invalid_output].name) +
                          "': is saved for the backward but cannot be computed in the forward");
  }
  check_outputs(e.backward);
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].op == OpKind::CallFunction && e.forward.keep[id] && !e.forward.is_input[id] && e.backward.keep[id] &&
        !e.backward.is_input[id]) {
      e.recomputed.push_back(id);
    }
  }
  return e;
}

}  // namespace pt
