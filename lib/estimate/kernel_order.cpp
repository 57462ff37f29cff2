#include "estimate/kernel_order.h"

#include <algorithm>
#include <unordered_map>

namespace pt {

namespace {

// Inductor's can_fusion_increase_peak_memory keeps nodes more than 64
// scheduler nodes apart out of one kernel; as in sibling_fusion.cpp, 64
// scheduler nodes are taken as 256 graph nodes. The bandwidth model's
// kernels can be wider (a column reduction summed over every layer, one
// layer's softmax recomputed beside another's backward): run whole, they
// held values of every layer to the backward's end (moe_top2 under a
// memory limit: 2.79 GB predicted, 1.83 GB measured).
constexpr int32_t kWidestKernel = 256;

// Per kernel of `kernel_at` (per position, -1 for none), its last position
// minus its first.
std::unordered_map<int32_t, int32_t> kernel_widths(const std::vector<int32_t>& kernel_at) {
  std::unordered_map<int32_t, std::pair<int32_t, int32_t>> span;  // first and last position
  for (size_t i = 0; i < kernel_at.size(); ++i) {
    if (kernel_at[i] < 0) continue;
    const auto p = static_cast<int32_t>(i);
    span.try_emplace(kernel_at[i], p, p).first->second.second = p;
  }
  std::unordered_map<int32_t, int32_t> width;
  for (const auto& [k, fl] : span) width.emplace(k, fl.second - fl.first);
  return width;
}

// Per position of `order`, the kernel its node runs in (-1: its own).
std::vector<int32_t> kernels_at(const Graph& g, const NodeOpClasses& ops, const std::vector<int32_t>& kernel,
                                const Flags& is_input, const std::vector<NodeId>& order,
                                const std::vector<int32_t>& position) {
  std::vector<int32_t> at(order.size(), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    const NodeId id = order[i];
    if (is_input[id]) continue;
    if (static_cast<size_t>(id) < kernel.size() && kernel[id] >= 0) {
      at[i] = kernel[id];
      continue;
    }
    // A view (or getitem) of one kernel's values alone is part of that
    // kernel: Inductor indexes through it inside the kernel, and on its own
    // it would stand between the kernel's nodes.
    if (!ops.is_view(id) && g[id].packet != "operator.getitem") continue;
    int32_t k = -1;
    bool one = true;
    for (NodeId x : g[id].inputs) {
      const int32_t p = position[x];
      if (p < 0 || is_input[x]) continue;
      const int32_t kx = at[static_cast<size_t>(p)];
      if (kx < 0 || (k >= 0 && kx != k)) one = false;
      k = kx;
    }
    if (one) at[i] = k;
  }
  const auto width = kernel_widths(at);
  for (int32_t& k : at) {
    if (k >= 0 && width.at(k) > kWidestKernel) k = -1;
  }
  return at;
}

constexpr int kMaxSplits = 16;

// One try of run_kernels_whole: the order with each kernel of `kernel_at`
// (per position) run whole, or, when kernels read one another in a cycle,
// nothing and the kernels of that cycle in `cycle`.
std::vector<NodeId> kernels_in_order(const Graph& g, const Flags& is_input, const std::vector<NodeId>& order,
                                     const std::vector<int32_t>& position, const std::vector<int32_t>& kernel_at,
                                     std::vector<int32_t>& cycle) {
  // Units in the order of their first nodes; a unit's members by position.
  std::vector<int32_t> unit_at(order.size());
  std::vector<std::vector<int32_t>> members;
  std::unordered_map<int32_t, int32_t> unit_of_kernel;
  for (size_t i = 0; i < order.size(); ++i) {
    int32_t u = static_cast<int32_t>(members.size());
    if (kernel_at[i] >= 0) {
      const auto [it, added] = unit_of_kernel.emplace(kernel_at[i], u);
      u = it->second;
      if (added) members.emplace_back();
    } else {
      members.emplace_back();
    }
    unit_at[i] = u;
    members[static_cast<size_t>(u)].push_back(static_cast<int32_t>(i));
  }
  if (members.size() == order.size()) return order;  // no kernel of two nodes

  // The units a unit reads from, by their first nodes.
  auto dependencies = [&](int32_t u) {
    std::vector<int32_t> deps;
    for (int32_t i : members[static_cast<size_t>(u)]) {
      const NodeId id = order[static_cast<size_t>(i)];
      if (is_input[id]) continue;  // computed before the pass
      for (NodeId x : g[id].inputs) {
        const int32_t p = position[x];
        if (p < 0) continue;
        const int32_t v = unit_at[static_cast<size_t>(p)];
        if (v != u) deps.push_back(v);
      }
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    return deps;
  };

  // Depth first from each unit in turn, what it reads first
  // (topological_sort_schedule).
  enum : uint8_t { kUnseen, kOpen, kDone };
  std::vector<uint8_t> state(members.size(), kUnseen);
  std::vector<NodeId> out;
  out.reserve(order.size());
  struct Frame {
    int32_t unit;
    std::vector<int32_t> deps;
    size_t next = 0;
  };
  std::vector<Frame> stack;
  auto kernel_of_unit = [&](int32_t u) { return kernel_at[static_cast<size_t>(members[static_cast<size_t>(u)][0])]; };
  for (int32_t root = 0; root < static_cast<int32_t>(members.size()); ++root) {
    if (state[static_cast<size_t>(root)] != kUnseen) continue;
    state[static_cast<size_t>(root)] = kOpen;
    stack.push_back({root, dependencies(root)});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.deps.size()) {
        const int32_t v = f.deps[f.next++];
        if (state[static_cast<size_t>(v)] == kOpen) {  // the open units from v up read one another
          bool on_cycle = false;
          for (const Frame& c : stack) {
            on_cycle = on_cycle || c.unit == v;
            if (on_cycle && kernel_of_unit(c.unit) >= 0) cycle.push_back(kernel_of_unit(c.unit));
          }
          return {};
        }
        if (state[static_cast<size_t>(v)] == kDone) continue;
        state[static_cast<size_t>(v)] = kOpen;
        stack.push_back({v, dependencies(v)});
        continue;
      }
      for (int32_t i : members[static_cast<size_t>(f.unit)]) out.push_back(order[static_cast<size_t>(i)]);
      state[static_cast<size_t>(f.unit)] = kDone;
      stack.pop_back();
    }
  }
  return out;
}

}  // namespace

bool run_kernels_whole(const Graph& g, const NodeOpClasses& ops, const std::vector<int32_t>& kernel,
                       const Flags& is_input, std::vector<NodeId>& order) {
  if (kernel.empty() || order.empty()) return true;
  std::vector<int32_t> position(static_cast<size_t>(g.size()), -1);
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int32_t>(i);
  std::vector<int32_t> kernel_at = kernels_at(g, ops, kernel, is_input, order, position);
  bool whole = true;
  for (int split = 0;; ++split) {
    std::vector<int32_t> cycle;
    std::vector<NodeId> out = kernels_in_order(g, is_input, order, position, kernel_at, cycle);
    if (out.size() == order.size()) {
      order = std::move(out);
      return whole;
    }
    // Kernels that read one another in a cycle: the widest of them runs
    // node by node (the bandwidth model's kernels are wider than
    // Inductor's, which never fuses into a cycle: a sibling merge can join
    // a layer's recomputation with its backward), and the rest try again.
    // Each try is a pass over the order, so after kMaxSplits the order
    // stays as emitted.
    whole = false;
    if (split == kMaxSplits || cycle.empty()) return false;
    const auto width = kernel_widths(kernel_at);
    int32_t widest = cycle.front();
    for (int32_t k : cycle) {
      if (width.at(k) > width.at(widest)) widest = k;
    }
    for (int32_t& k : kernel_at) {
      if (k == widest) k = -1;
    }
  }
}

}  // namespace pt
