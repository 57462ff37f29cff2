#include "estimate/pass_simulation.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace pt {

bool PassSimulation::fused_op(NodeId id, const Materialized& rules) const {
  if (ops.is_fusible_op(id)) return true;
  if (!rules.pointwise_tag_fuses) return false;
  return g[id].pointwise_tag;
}

bool PassSimulation::is_alias(NodeId id, const Flags& is_input) const {
  if (is_input[id]) return false;
  const Node& n = g[id];
  return !n.positional_inputs.empty() && (ops.is_view(id) || n.packet == "operator.getitem");
}

bool PassSimulation::reads_directly(NodeId id, NodeId r, const std::vector<NodeId>& root, const Flags& in_pass,
                                    const Flags& is_input, const Flags& stored,
                                    const Flags& realized) const {
  if (realized.empty()) return true;
  std::vector<NodeId>& stack = stack_;
  std::vector<NodeId>& seen = seen_;
  stack.assign(g[id].inputs.begin(), g[id].inputs.end());
  seen.clear();
  auto answer = [&](bool v) {
    for (NodeId y : seen) visited_[y] = false;  // all false between calls
    return v;
  };
  if (visited_.size() != static_cast<size_t>(g.size())) visited_.assign(static_cast<size_t>(g.size()), false);
  while (!stack.empty()) {
    const NodeId x = stack.back();
    stack.pop_back();
    if (!in_pass[x] || root[x] == kNoNode) continue;
    const NodeId y = root[x];
    if (y == r) return answer(true);
    if (is_input[y] || stored[y] || realized[y] || visited_[y]) continue;
    visited_[y] = true;
    seen.push_back(y);
    if (seen.size() > 4096) return answer(true);
    stack.insert(stack.end(), g[y].inputs.begin(), g[y].inputs.end());
  }
  return answer(false);
}

bool PassSimulation::same_buffer(NodeId a, NodeId b, const Flags& padded,
                                 const std::unordered_map<NodeId, NodeId>& padded_by) const {
  const Node& na = g[a];
  const Node& nb = g[b];
  if (na.dtype == 0 || na.dtype != nb.dtype) return false;
  // With padded layouts, equal values may still differ in storage: a
  // backward input keeps the unpadded layout it came with, and a padded
  // gradient of its size cannot be written into it (OPT's logits gradient
  // and the logits' tangent).
  if (padded.empty()) return na.size_bytes == nb.size_bytes;
  const uint64_t lo = std::min(na.size_bytes, nb.size_bytes), hi = std::max(na.size_bytes, nb.size_bytes);
  if (hi - lo > lo / 8) return false;
  auto storage = [&](NodeId id) {
    if (!padded[id]) return g[id].size_bytes;
    const auto pad = padded_by.find(id);
    return padded_storage_bytes(g, id, pad == padded_by.end() ? kNoNode : pad->second);
  };
  return storage(a) == storage(b);
}

template <typename Allocates>
std::vector<uint64_t> PassSimulation::allocations(const std::vector<NodeId>& order, const Flags& is_input,
                                                  const std::vector<NodeId>& root, const Flags& takes_over,
                                                  const std::vector<int32_t>& kernel, const Flags& recomputed,
                                                  const Allocates& allocates, const Flags& item,
                                                  const std::vector<int32_t>& copied_at,
                                                  std::vector<int32_t>* at_of) const {
  std::unordered_map<NodeId, int32_t> tuple_at;  // when traced: where each tuple with items was allocated
  std::vector<size_t> launch;  // per kernel: its first position in `order`
  for (size_t pos = 0; pos < order.size() && !kernel.empty(); ++pos) {
    const int32_t k = kernel[order[pos]];
    if (k < 0) continue;
    if (static_cast<size_t>(k) >= launch.size()) launch.resize(static_cast<size_t>(k) + 1, order.size());
    launch[k] = std::min(launch[k], pos);
  }
  std::vector<uint64_t> bytes(order.size(), 0);
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const NodeId id = order[pos];
    if (item[id]) {
      const auto t = tuple_at.find(g[id].positional_inputs[0]);
      if (at_of && t != tuple_at.end()) (*at_of)[pos] = t->second;
      continue;
    }
    if (is_input[id] || root[id] != id || !allocates(id) || takes_over[id]) continue;
    const bool at_launch = !kernel.empty() && kernel[id] >= 0 && (recomputed.empty() || !recomputed[id]);
    size_t at = at_launch ? launch[kernel[id]] : pos;
    if (!copied_at.empty() && copied_at[pos] >= 0) at = static_cast<size_t>(copied_at[pos]);
    bytes[at] += g[id].size_bytes;
    if (at_of) (*at_of)[pos] = static_cast<int32_t>(at);
    if (at_of && g[id].value_kind == ValueKind::Tuple) tuple_at.emplace(id, static_cast<int32_t>(at));
  }
  return bytes;
}

template <typename Allocates, typename OwnBytes>
std::vector<BufferEvent> PassSimulation::plan_reuse(
    const std::vector<NodeId>& order, const Flags& is_input, const std::vector<NodeId>& root,
    const Flags& takes_over, const Flags& taken, const Flags& item, const Allocates& allocates,
    const OwnBytes& own_bytes, const Materialized& rules, const std::vector<uint64_t>& allocated,
    const std::vector<uint64_t>& freed, const std::vector<int32_t>& allocated_at, const std::vector<int32_t>& freed_at,
    const std::vector<int32_t>& last_use, uint64_t live) const {
  auto tensor = [&](NodeId id) { return g[id].value_kind == ValueKind::Tensor && g[id].dtype != 0; };
  auto inductor_allocates = [&](NodeId id) {
    const std::string_view p = g[id].packet;
    return fused_op(id, rules) || p == "aten.mm" || p == "aten.bmm" || p == "aten.addmm" || p == "aten.baddbmm";
  };
  std::vector<BufferEvent> allocs, frees;
  std::vector<uint64_t> estimate(allocated), dropped(freed);
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const NodeId id = order[pos];
    const auto at = static_cast<int32_t>(pos);
    if (takes_over[id]) estimate[pos] += g[id].size_bytes;
    if (taken[id]) dropped[static_cast<size_t>(last_use[id])] += own_bytes(id);
    if (is_input[id] || !tensor(id)) continue;
    if (allocated_at[pos] >= 0 && root[id] == id && allocates(id) && !takes_over[id] && !item[id] &&
        inductor_allocates(id)) {
      allocs.push_back({allocated_at[pos], at});
    }
    if (freed_at[pos] >= 0) frees.push_back({freed_at[pos], at});
  }
  for (size_t pos = 0; pos < order.size(); ++pos) {
    live += estimate[pos];
    estimate[pos] = live;
    live -= dropped[pos];
  }
  std::vector<uint64_t>().swap(dropped);
  return plan_buffer_reuse(g, order, std::move(allocs), std::move(frees), estimate);
}

void PassSimulation::run(const std::vector<NodeId>& order, const Flags& is_input, const Flags& retained,
                         const Flags& stored, const Flags& realized, const Materialized& rules,
                         const std::vector<int32_t>& kernel, const Flags& recomputed, uint64_t& live,
                         uint64_t& pass_peak, std::string& pass_peak_at, PassTrace* trace) const {
  auto allocates = [&](NodeId id) { return stored.empty() || stored[id]; };
  const NodeId count = g.size();
  std::vector<NodeId> root(count, kNoNode);
  // A non-fusible op that returns several tensors (convolution_backward's
  // input and weight gradients, an attention's output and statistics)
  // allocates them all when it runs, but each is a tensor of its own,
  // freed after its own last reader: a getitem of such a tuple is its own
  // buffer (`item`), and the tuple's buffer keeps the bytes of the items
  // no getitem takes (`items_bytes`, freed after the last getitem). As one
  // buffer, a returned weight gradient held its layer's input gradient to
  // the end of the step: ResNet-50 (fp32, activation_memory_budget 0.5)
  // peaked 1.06 GB above the measured 3.17 GB, with 1.97 GB of
  // "gradients" live where the weights' gradients are 0.10 GB.
  Flags item(count, false);
  std::unordered_map<NodeId, uint64_t> items_bytes;  // per tuple with items
  std::unordered_map<NodeId, NodeId> padded_by;      // a buffer padded in place: its pad
  auto owns_item = [&](NodeId id) {
    const Node& n = g[id];
    if (is_input[id] || n.packet != "operator.getitem" || n.positional_inputs.empty()) return false;
    const NodeId t = n.positional_inputs[0];
    return root[t] == t && !is_input[t] && g[t].value_kind == ValueKind::Tuple && !ops.is_fusible_op(t) &&
           allocates(t);
  };
  auto holds = [&](NodeId id) { return item[id] || allocates(id); };
  // The bytes a buffer frees: a tuple's without its items.
  auto own_bytes = [&](NodeId id) {
    const auto t = items_bytes.find(id);
    return g[id].size_bytes - (t == items_bytes.end() ? 0 : t->second);
  };
  // Positions in `order`, which holds each node once: below 2^31.
  std::vector<int32_t> last_use(count, -1);
  Flags in_pass(count, false);
  for (NodeId id : order) in_pass[id] = true;
  // A value kept in registers (allocates nothing) is computed again by each
  // kernel that reads it (estimate/bandwidth_model.h), so the memory it is
  // computed from stays live until its last reader, not its own last
  // reader: `sources` follows unallocated values back to allocated ones.
  // Without it, a recomputed GELU's input was freed before the GELU
  // backward that reads it (an MLP under a 0.5 budget: 0.27 GB below the
  // measured peak, docs/bandwidth_model.md). Off:
  // --bandwidth-option sources_live_to_readers=false.
  // sources[x] = pool[source_at[x], source_end[x]): one pool, not a vector
  // per node (graphs reach 10^6 nodes).
  std::vector<NodeId> pool, reads;
  std::vector<size_t> source_at(count, 0), source_end(count, 0);
  auto collect_reads = [&](NodeId id) {
    reads.clear();
    for (NodeId in : g[id].inputs) {
      if (!in_pass[in] || root[in] == kNoNode) continue;
      const NodeId r = root[in];
      if (is_input[r] || holds(r) || !rules.sources_live_to_readers) {
        reads.push_back(r);
      } else {
        reads.insert(reads.end(), pool.begin() + static_cast<std::ptrdiff_t>(source_at[r]),
                     pool.begin() + static_cast<std::ptrdiff_t>(source_end[r]));
      }
    }
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  };
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const NodeId id = order[pos];
    root[id] = is_alias(id, is_input) ? root[g[id].positional_inputs[0]] : id;
    // Inductor pads a matmul's input in place (config.inplace_padding,
    // estimate/inductor_padding.h): the pad is a view of a buffer the pass
    // computes. As a copy it held a second logits-sized buffer beside the
    // logits' gradient: bert_mlm's backward (bfloat16 [8192, 30528])
    // writes the gradient into the saved logits and fills only the pad's
    // six columns (the generated code on the H100), where the simulation
    // held 0.50 GB more at its peak than was measured. Off:
    // --bandwidth-option padded_buffers=false.
    if (rules.padded_buffers && root[id] == id && !is_input[id] && !g[id].positional_inputs.empty()) {
      const NodeId in = g[id].positional_inputs[0];
      if (in_pass[in] && !is_input[in] && root[in] == in && holds(in) && pads_in_place(g, id)) {
        root[id] = in;
        padded_by.emplace(in, id);
      }
    }
    if (in_pass[id] && owns_item(id)) {
      root[id] = id;
      item[id] = true;
      items_bytes[g[id].positional_inputs[0]] += g[id].size_bytes;
    }
    if (is_input[id]) continue;
    collect_reads(id);
    for (NodeId r : reads) last_use[r] = static_cast<int32_t>(pos);
    if (root[id] == id && !holds(id)) {
      source_at[id] = pool.size();
      pool.insert(pool.end(), reads.begin(), reads.end());
      source_end[id] = pool.size();
    }
  }
  // A retained view keeps its base retained.
  Flags keep = retained;
  for (NodeId id : order) {
    if (retained[id] && root[id] != kNoNode) keep[root[id]] = true;
  }
  // Buffers with Inductor's padded layouts: what the pass computes and
  // does not return (comprehensive padding, estimate/inductor_padding.h).
  // A buffer takes over another in place only when their storage sizes
  // match: bert_mlm's [8192, 30522] logits gradient is allocated 30528
  // wide and takes over the padded logits (the generated code on the
  // H100); compared unpadded it held a buffer of its own. Off:
  // --bandwidth-option padded_buffers=false.
  Flags padded;
  if (rules.padded_buffers) {
    padded.assign(static_cast<size_t>(count), false);
    for (NodeId id : order) padded[id] = !is_input[id] && !keep[id];
  }
  // Inductor writes a fused kernel's output into a buffer that kernel reads
  // for the last time when both have the same size and dtype
  // (config.inplace_buffers; the backward's saved values are donated to it,
  // so they qualify, the primals do not). The output then allocates nothing
  // and the buffer is not freed: its memory changes owner. Needs the fused
  // masks (`stored`); with the extended lifetimes above, a cross-entropy
  // backward that turns the saved logits into their gradient would
  // otherwise hold both (linear_ce_fp32: 4.19 GB against 2.30 measured).
  // Inductor decides it per realized value (SchedulerNode.
  // decide_inplace_update), from the buffers that value's own computation
  // loads: an output that reads the buffer only through a value its kernel
  // realizes (`realized`; the float32 loss gradient before its bfloat16
  // cast, estimate/bandwidth_options.h's realize_large_expressions) does not
  // take it over. Off: --bandwidth-option write_in_place=false.
  Flags takes_over(count, false), taken(count, false);
  std::vector<std::pair<NodeId, size_t>> taken_at;  // (buffer, position of the value taking it), when traced
  if (!stored.empty() && rules.write_in_place) {
    for (size_t pos = 0; pos < order.size(); ++pos) {
      const NodeId id = order[pos];
      if (is_input[id] || root[id] != id || !allocates(id) || !fused_op(id, rules)) continue;
      collect_reads(id);
      for (NodeId r : reads) {
        // Only a buffer that holds memory can change owner: without
        // sources_live_to_readers, `reads` also names values kept in
        // registers, and taking one over freed bytes never allocated.
        const bool holds_memory = is_input[r] || holds(r);
        if (holds_memory && last_use[r] == static_cast<int32_t>(pos) && !keep[r] && !taken[r] &&
            !items_bytes.count(r) && same_buffer(r, id, padded, padded_by) &&
            reads_directly(id, r, root, in_pass, is_input, stored, realized)) {
          taken[r] = takes_over[id] = true;
          if (trace) taken_at.emplace_back(r, pos);
          break;
        }
      }
    }
  }
  // The sources are read no more: their 17 bytes a node (15 MB at 10^6
  // nodes) go back before the two arrays below take 16 bytes a position,
  // at the moment that sets the report's peak memory.
  std::vector<NodeId>().swap(pool);
  std::vector<size_t>().swap(source_at);
  std::vector<size_t>().swap(source_end);
  Flags().swap(in_pass);
  // Bytes freed after each position (only their sum per position matters:
  // a vector of freed ids per position cost 10^6 small vectors, ~40 MB at
  // the report's peak on 10^6 nodes).
  std::vector<uint64_t> freed(order.size(), 0);
  // Per position, when traced or reusing buffers: where its bytes go (-1: not in the pass).
  std::vector<int32_t> freed_at;
  if (trace || rules.reuse_freed_buffers) freed_at.assign(order.size(), -1);
  for (size_t produced = 0; produced < order.size(); ++produced) {
    const NodeId id = order[produced];
    if (root[id] != id || keep[id] || taken[id] || (!is_input[id] && !holds(id))) continue;
    const int32_t at = last_use[id];
    // A value nobody reads is freed right after it is produced (found by
    // its position, not by a search of the order: quadratic in unread values).
    const size_t where = at >= 0 ? static_cast<size_t>(at) : produced;
    freed[where] += own_bytes(id);
    if (!freed_at.empty()) freed_at[produced] = static_cast<int32_t>(where);
  }
  std::vector<int32_t> allocated_at;
  if (!freed_at.empty()) allocated_at.assign(order.size(), -1);
  // A functional scatter's copy of its destination joins the copies of
  // that buffer fused with it (estimate/scatter_copies.h). moe_top2's
  // backward scatters each of its four MoE blocks' gradients into a copy
  // of one saved zero buffer (index_put): the first block's backward
  // allocates three of the four 84 MB copies at once, the fourth being 83
  // buffers after the first (the measured peak's blocks, three
  // allocations on consecutive lines of the generated backward on the
  // H100), 0.17 GB the simulation had allocated later. Off:
  // --bandwidth-option fuse_scatter_copies=false.
  const std::vector<uint64_t> allocated =
      allocations(order, is_input, root, takes_over, kernel, recomputed, allocates, item,
                  rules.fuse_scatter_copies ? scatter_copy_positions(g, order, is_input, root, stored, item,
                                                                             rules.fills_at_readers)
                                            : std::vector<int32_t>{},
                  allocated_at.empty() ? nullptr : &allocated_at);
  // A freed buffer that a later allocation takes is freed just before it.
  std::vector<BufferEvent> reused;
  if (rules.reuse_freed_buffers) {
    reused = plan_reuse(order, is_input, root, takes_over, taken, item, allocates, own_bytes, rules, allocated, freed,
                        allocated_at, freed_at, last_use, live);
    for (const BufferEvent& r : reused) {
      const uint64_t bytes = own_bytes(order[static_cast<size_t>(r.buffer)]);
      freed[static_cast<size_t>(freed_at[static_cast<size_t>(r.buffer)])] -= bytes;
      freed[static_cast<size_t>(r.at) - 1] += bytes;
    }
  }
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const NodeId id = order[pos];
    live += allocated[pos];
    if (live > pass_peak) {
      pass_peak = live;
      pass_peak_at = g[id].name;
      if (trace) trace->peak_pos = pos;
    }
    // More freed than held is a bookkeeping error (a buffer freed twice,
    // or one no kernel allocated): the unsigned total would wrap around to
    // about 1.8e19 bytes and pass for a peak.
    if (freed[pos] > live) {
      throw std::logic_error("peak memory simulation: more bytes freed than held after '" +
                             std::string(g[id].name) + "'");
    }
    live -= freed[pos];
  }
  if (trace) {
    std::vector<uint64_t> bytes(order.size());
    for (size_t pos = 0; pos < order.size(); ++pos) bytes[pos] = own_bytes(order[pos]);
    trace_lifetimes(g, order, is_input, takes_over, allocated_at, freed_at, taken_at, reused, bytes, *trace);
  }
  if (trace) trace->root = std::move(root);
}

}  // namespace pt
