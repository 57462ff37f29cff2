#include "estimate/pass_trace.h"

#include <algorithm>
#include <utility>

namespace pt {

namespace {

// Each node's buffer as the pass's trace saw it (a view's base).
NodeId buffer_of(const PassTrace& trace, NodeId id) {
  return trace.root.empty() || trace.root[id] == kNoNode ? id : trace.root[id];
}

// Ends the lifetime that holds a pass input's memory: the input's own, or,
// for a view the forward saved, its base's (the forward kept the base).
// A view's end frees the view's own size (end.bytes): what it leaves of a
// larger base lives on as a lifetime of its own.
void end_carried(const Graph& g, const NodeOpClasses& ops, std::vector<int32_t>& carried, size_t offset,
                 const ValueLifetime& end, MemoryTimeline& t) {
  NodeId v = end.node;
  while (carried[v] < 0 && !g[v].positional_inputs.empty() &&
         (ops.is_view(v) || g[v].packet == "operator.getitem")) {
    v = g[v].positional_inputs[0];
  }
  if (carried[v] < 0) return;
  const auto at = static_cast<size_t>(carried[v]);
  t.lifetimes[at].last = static_cast<int32_t>(offset) + end.last;
  t.lifetimes[at].reader = end.reader;
  carried[v] = -1;
  if (t.lifetimes[at].bytes <= end.bytes) return;
  ValueLifetime rest = t.lifetimes[at];
  rest.bytes -= end.bytes;
  rest.first = rest.last + 1;
  rest.last = ValueLifetime::kStillLive;
  rest.reader = kNoNode;
  carried[v] = static_cast<int32_t>(t.lifetimes.size());
  t.lifetimes.push_back(rest);
}

// Ends the carried lifetimes in the order the pass frees them.
void end_all_carried(const Graph& g, const NodeOpClasses& ops, std::vector<int32_t> carried, size_t offset,
                     std::vector<ValueLifetime> ends, MemoryTimeline& t) {
  std::stable_sort(ends.begin(), ends.end(),
                   [](const ValueLifetime& a, const ValueLifetime& b) { return a.last < b.last; });
  for (const ValueLifetime& end : ends) end_carried(g, ops, carried, offset, end, t);
}

// Per node, its lifetime among t's that are still live (-1: none).
std::vector<int32_t> still_live(const Graph& g, const MemoryTimeline& t) {
  std::vector<int32_t> carried(static_cast<size_t>(g.size()), -1);
  for (size_t i = 0; i < t.lifetimes.size(); ++i) {
    if (t.lifetimes[i].last == ValueLifetime::kStillLive) carried[t.lifetimes[i].node] = static_cast<int32_t>(i);
  }
  return carried;
}

}  // namespace

void record_forward(const Graph& g, const Classification& c, const Extraction& e, const NodeOpClasses& ops,
                    std::vector<NodeId> order, const PassTrace& trace, MemoryTimeline& t) {
  t = {};
  t.steps = std::move(order);
  t.backward_from = t.steps.size();
  t.peak_step = trace.peak_pos;
  const auto count = static_cast<size_t>(g.size());
  Flags saved(count, false), output(count, false);
  for (NodeId id : e.fw_saved_outputs()) saved[buffer_of(trace, id)] = true;
  for (NodeId id : c.fwd_outputs) {
    if (id != kNoNode) output[buffer_of(trace, id)] = true;
  }
  for (NodeId id : c.inputs) {
    t.lifetimes.push_back({id, g[id].size_bytes, 0, ValueLifetime::kStillLive, kNoNode, MemoryCategory::Input, LiveReason::Input});
  }
  end_all_carried(g, ops, still_live(g, t), 0, trace.input_ends, t);
  for (ValueLifetime v : trace.allocated) {
    if (saved[v.node]) {
      v.category = MemoryCategory::Saved;
      v.reason = LiveReason::Saved;
    } else if (output[v.node]) {
      v.reason = LiveReason::ForwardOutput;
    }
    t.lifetimes.push_back(v);
  }
}

void record_backward(const Graph& g, const Classification& c, const Extraction& e, const NodeOpClasses& ops,
                     const std::vector<NodeId>& order, const PassTrace& trace, bool backward_peak,
                     MemoryTimeline& t) {
  const size_t offset = t.steps.size();
  t.backward_from = offset;
  t.steps.insert(t.steps.end(), order.begin(), order.end());
  if (backward_peak) t.peak_step = offset + trace.peak_pos;
  for (NodeId id : e.grad_inputs) {
    if (g[id].input_kind != InputKind::Tangent) continue;
    t.lifetimes.push_back({id, g[id].size_bytes, static_cast<int32_t>(offset), ValueLifetime::kStillLive, kNoNode,
                           MemoryCategory::Input, LiveReason::Tangent});
  }
  end_all_carried(g, ops, still_live(g, t), offset, trace.input_ends, t);
  Flags gradient(static_cast<size_t>(g.size()), false);
  for (NodeId id : c.bwd_outputs) {
    if (id != kNoNode) gradient[buffer_of(trace, id)] = true;
  }
  for (ValueLifetime v : trace.allocated) {
    v.first += static_cast<int32_t>(offset);
    if (v.last != ValueLifetime::kStillLive) v.last += static_cast<int32_t>(offset);
    if (gradient[v.node]) {
      v.category = MemoryCategory::Gradient;
      v.reason = LiveReason::Gradient;
    }
    t.lifetimes.push_back(v);
  }
}

void trace_lifetimes(const Graph& g, const std::vector<NodeId>& order, const Flags& is_input,
                     const Flags& takes_over, const std::vector<int32_t>& allocated_at,
                     const std::vector<int32_t>& freed_at, const std::vector<std::pair<NodeId, size_t>>& taken_at,
                     const std::vector<BufferEvent>& reused, const std::vector<uint64_t>& own_bytes,
                     PassTrace& trace) {
  std::vector<int32_t> position(static_cast<size_t>(g.size()), -1);
  for (size_t pos = 0; pos < order.size(); ++pos) position[order[pos]] = static_cast<int32_t>(pos);
  std::vector<int32_t> last(order.size(), ValueLifetime::kStillLive);
  std::vector<NodeId> reader(order.size(), kNoNode);
  for (size_t pos = 0; pos < order.size(); ++pos) {
    if (freed_at[pos] < 0) continue;
    last[pos] = freed_at[pos];
    if (freed_at[pos] != static_cast<int32_t>(pos)) reader[pos] = order[static_cast<size_t>(freed_at[pos])];
  }
  for (const auto& [r, pos] : taken_at) {
    const auto at = static_cast<size_t>(position[r]);
    last[at] = static_cast<int32_t>(pos) - 1;
    reader[at] = order[pos];
  }
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const NodeId id = order[pos];
    ValueLifetime v;
    v.node = id;
    v.bytes = own_bytes[pos];
    v.last = last[pos];
    v.reader = reader[pos];
    if (is_input[id]) {
      if (v.last != ValueLifetime::kStillLive) trace.input_ends.push_back(v);
      continue;
    }
    if (allocated_at[pos] >= 0) v.first = allocated_at[pos];
    else if (takes_over[id]) v.first = static_cast<int32_t>(pos);
    else continue;
    trace.allocated.push_back(v);
  }
  // A freed buffer that a later allocation takes stays, from its last
  // reader on, until the step before that allocation's.
  for (const BufferEvent& r : reused) {
    ValueLifetime v;
    v.node = order[static_cast<size_t>(r.buffer)];
    v.bytes = own_bytes[static_cast<size_t>(r.buffer)];
    v.first = freed_at[static_cast<size_t>(r.buffer)] + 1;
    v.last = r.at - 1;
    v.reader = order[static_cast<size_t>(r.at)];
    v.reason = LiveReason::HeldForReuse;
    if (v.first <= v.last) trace.allocated.push_back(v);
  }
}

}  // namespace pt
