#include "prepare/mutation.h"

#include <array>
#include <cstddef>
#include <string>

namespace pt {

namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// PyTorch's _mutation_op_re, r"(?<!_)(_$|_[.]|(\b|_)(set|enter|exit|seed)(\b|_))(?!_)",
// searched in a callable's __name__, written out by hand (std::regex has no
// look-behind). The regex's "_." branch cannot fire on a name without dots.
bool name_looks_mutating(std::string_view name) {
  const size_t len = name.size();
  auto underscore_at = [&](size_t i) { return i < len && name[i] == '_'; };
  // A single trailing underscore ("relu_"), not a dunder.
  if (len >= 1 && name[len - 1] == '_' && !(len >= 2 && name[len - 2] == '_')) return true;
  constexpr std::array<std::string_view, 4> kWords{"set", "enter", "exit", "seed"};
  for (std::string_view w : kWords) {
    for (size_t p = name.find(w); p != std::string_view::npos; p = name.find(w, p + 1)) {
      const size_t q = p + w.size();
      // Left: a word boundary at p (start, or after a non-word char), or an
      // underscore at p-1 that is not itself preceded by one.
      bool left = p == 0 || !is_word_char(name[p - 1]) || (name[p - 1] == '_' && !(p >= 2 && name[p - 2] == '_'));
      // Right: a boundary at q (end, or a non-word char), or an underscore at
      // q that is not followed by another.
      bool right = q == len || !is_word_char(name[q]) || (name[q] == '_' && !underscore_at(q + 1));
      if (left && right) return true;
    }
  }
  return false;
}

std::string_view last_component(std::string_view target) {
  const size_t dot = target.rfind('.');
  return dot == std::string_view::npos ? target : target.substr(dot + 1);
}

}  // namespace

bool is_operator_overload(std::string_view target) {
  for (std::string_view prefix : {"operator.", "builtins.", "math.", "torch.", "higher_order.", "_operator."}) {
    if (target.starts_with(prefix)) return false;
  }
  const size_t first = target.find('.');
  return first != std::string_view::npos && target.find('.', first + 1) != std::string_view::npos;
}

bool is_operator_overload(const Node& n) {
  // packet_of drops the overload exactly when the target has two dots and
  // none of its callable prefixes, so the packet is shorter than the target
  // exactly then; "_operator." (not one of packet_of's prefixes) is tested on
  // the packet, which starts as the target does.
  return !n.packet.starts_with("_operator.") && n.packet.size() < n.target.size();
}

bool is_mutation_node(const Graph& g, NodeId id) {
  const Node& n = g[id];
  if (n.op != OpKind::CallFunction) return false;
  if (is_operator_overload(n)) {
    // inductor.accumulate_grad_ and inductor.resize_storage_bytes_ mutate
    // although their schemas say otherwise (PyTorch's
    // fixme_incorrect_inductor_schema_op).
    if (n.packet == "inductor.accumulate_grad_" || n.packet == "inductor.resize_storage_bytes_") return true;
    return n.is_mutable;
  }
  return name_looks_mutating(last_component(n.target)) || n.out_kwarg;
}

bool returns_first_arg_storage(const Node& n) {
  if (n.op != OpKind::CallFunction || !is_operator_overload(n)) return false;
  const std::string_view name = last_component(n.packet);
  return name.size() >= 2 && name.back() == '_' && name[name.size() - 2] != '_';
}

}  // namespace pt
