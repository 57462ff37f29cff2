// One pass of the peak simulation (estimate/peak_memory.h): what is
// allocated and freed as the pass runs, under Inductor's rules of
// allocation that BandwidthOptions switches.
#pragma once

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "estimate/peak_memory.h"
#include "analysis/node_op_classes.h"
#include "estimate/backward_order.h"
#include "estimate/buffer_reuse.h"
#include "estimate/inductor_padding.h"
#include "estimate/matmul_at_add.h"
#include "estimate/pass_trace.h"
#include "estimate/scatter_copies.h"

namespace pt {

// Simulates one pass over `order` (ids of the joint graph). `is_input` marks
// the pass's inputs (placeholders there: allocated before the pass starts,
// their own storage). `retained` values are never freed within the pass.
// `live` carries the bytes alive when the pass starts; it ends with the bytes
// alive when the pass ends.
struct PassSimulation {
  const Graph& g;
  const NodeOpClasses& ops;
  // reads_directly's marks: all false between calls (it clears what it set),
  // so a search costs what it visits, not a scan of what it saw.
  mutable Flags visited_ = {};
  // reads_directly's search stack and the values it marked: kept from call
  // to call (two lists per call were 150,000 allocations at 10^6 nodes).
  mutable std::vector<NodeId> stack_ = {}, seen_ = {};

  // Whether a Triton kernel computes `id`: an op of PyTorch's fusible set,
  // or, with pointwise_tag_fuses, any op tagged pointwise (as the kernel
  // grouping counts them, estimate/fusion_groups.cpp).
  bool fused_op(NodeId id, const Materialized& rules) const;

  bool is_alias(NodeId id, const Flags& is_input) const;

  // Whether `id`'s own computation loads buffer `r`: a search back through
  // its unallocated inputs that stops at allocated values and at values its
  // kernel realizes (a buffer of their own, which `id` reads instead).
  // Unallocated chains are short (realization bounds them); past 4096
  // values it answers yes, the rule without realized values.
  bool reads_directly(NodeId id, NodeId r, const std::vector<NodeId>& root, const Flags& in_pass,
                      const Flags& is_input, const Flags& stored,
                      const Flags& realized) const;

  // Whether buffers a and b share Inductor's reuse key: tensors of one
  // dtype (Node::dtype: 0 for any other value; decoding the two records for
  // it was a sixth of the simulation at 10^6 nodes) and one size, or, with
  // `padded` (per node: the pass computes it and does not return it), one
  // size of storage after comprehensive padding (estimate/inductor_padding.h;
  // records are read only for sizes within an eighth of each other, the
  // most padding adds).
  bool same_buffer(NodeId a, NodeId b, const Flags& padded,
                   const std::unordered_map<NodeId, NodeId>& padded_by) const;

  // Bytes each position of `order` allocates: a stored value at its own
  // node, or, with `kernel` (the pass's kernel per node, -1 for none; empty:
  // per node), at the first node of its kernel in the order. Inductor
  // allocates every output of a fused kernel before it launches the kernel,
  // and the kernel runs where its earliest member would (the scheduler sorts
  // fused nodes by their first member, then topologically). ViT under
  // aggressive recomputation: the kernel that recomputes the residual stream
  // right after the loss also computes the float32 normalized values of ten
  // layers' LayerNorm backward, with the rest 0.37 GB allocated at once (measured
  // on the H200, docs/bandwidth_model.md), where the model
  // allocated each before its own layer's backward: 0.28 GB below the
  // measured peak. A recomputed forward value (`recomputed`) stays at its own
  // node: PyTorch emits it just before its first reader, and Inductor mostly
  // fuses it there, into that reader's kernel (mlp_gelu_ln
  // aggressive's early kernel stores the residual and two normalized values;
  // every recomputed LayerNorm output comes from its own layer's backward
  // kernel). ViT's early kernel also holds ten recomputed bfloat16 values
  // (0.10 GB) that this leaves at their readers.
  // Off: --bandwidth-option allocate_at_kernel_launch=false.
  // An item of a multi-output op (`item`, run's TupleItems) is allocated
  // with its tuple, whose size counts it: it adds nothing here, and its
  // position (`at_of`) is its tuple's.
  // `copied_at` (per position; empty, or -1: none) moves a scatter's
  // allocation to where its copy runs (estimate/scatter_copies.h).
  template <typename Allocates>
  std::vector<uint64_t> allocations(const std::vector<NodeId>& order, const Flags& is_input,
                                    const std::vector<NodeId>& root, const Flags& takes_over,
                                    const std::vector<int32_t>& kernel, const Flags& recomputed,
                                    const Allocates& allocates, const Flags& item,
                                    const std::vector<int32_t>& copied_at,
                                    std::vector<int32_t>* at_of = nullptr) const;

  // Inductor's buffer reuse (estimate/buffer_reuse.h): which freed buffers
  // later allocations take. Inductor allocates a Triton kernel's outputs
  // and a matmul's (an ATen fallback allocates its own), and pools what the
  // pass computes and frees (the pass's inputs are freed at once). Its
  // estimate of the pass's memory is this simulation's before reuse, with
  // each value in its own buffer: no writes in place (Inductor decides those
  // later). bert_mlm's backward keeps each layer's 50 MB GELU gradient for
  // the next layer's (the generated code's "# reuse" lines): one more 50 MB
  // block at the measured peak than the simulation held; the backward's
  // estimate counts the softmax backward's output apart from its saved
  // input, which Inductor writes in place, and the held gradients fit under
  // that estimate's peak. Off: --bandwidth-option reuse_freed_buffers=false.
  template <typename Allocates, typename OwnBytes>
  std::vector<BufferEvent> plan_reuse(const std::vector<NodeId>& order, const Flags& is_input,
                                      const std::vector<NodeId>& root, const Flags& takes_over, const Flags& taken,
                                      const Flags& item, const Allocates& allocates, const OwnBytes& own_bytes,
                                      const Materialized& rules, const std::vector<uint64_t>& allocated,
                                      const std::vector<uint64_t>& freed, const std::vector<int32_t>& allocated_at,
                                      const std::vector<int32_t>& freed_at, const std::vector<int32_t>& last_use,
                                      uint64_t live) const;

  void run(const std::vector<NodeId>& order, const Flags& is_input, const Flags& retained,
           const Flags& stored, const Flags& realized, const Materialized& rules,
           const std::vector<int32_t>& kernel, const Flags& recomputed, uint64_t& live,
           uint64_t& pass_peak, std::string& pass_peak_at, PassTrace* trace = nullptr) const;
};

}  // namespace pt
