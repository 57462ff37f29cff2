// Peak activation memory of a partition, which PyTorch does not compute:
// run the forward graph then the backward graph in order, allocating each
// value when its node runs and freeing it after its last reader, and record
// the largest total. Views and getitems allocate nothing and keep their base
// alive, except the getitems of a non-fusible op's tuple (convolution_backward's
// gradients): each item is freed after its own last reader. Primals (parameters, inputs) are held by the caller for the whole
// step; saved values live from the forward until their last backward reader;
// forward outputs and gradients live to the end of their pass and beyond.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/classify.h"
#include "analysis/node_op_classes.h"
#include "settings/op_classes.h"
#include "estimate/memory_timeline.h"
#include "graph/graph.h"
#include "partition/extract.h"

namespace pt {

struct PeakMemory {
  uint64_t peak_bytes = 0;        // largest live total, inputs included
  std::string peak_at;            // node running at the peak
  std::string peak_pass;          // "forward" or "backward"
  uint64_t forward_peak_bytes = 0;
  uint64_t backward_peak_bytes = 0;
  uint64_t saved_bytes = 0;       // what the forward hands the backward (values and symbols)
  uint64_t input_bytes = 0;       // primals and forward seeds, live throughout
  friend bool operator==(const PeakMemory&, const PeakMemory&) = default;
};

// Which values are written to memory in each pass (per joint node). Empty:
// every value is (no fusion). A fusing compiler keeps the intermediates of a
// kernel in registers: pass its stored masks (estimate/fusion_groups.h) to
// model that; inputs of a pass are always in memory.
// With masks, two rules follow Inductor (peak_memory.cpp says why; the
// bandwidth options of the same names turn them off):
// sources_live_to_readers keeps what an unallocated value is computed from
// live until that value's last reader; write_in_place lets a fused output
// take the memory of a same-sized buffer that it reads last, when its own
// computation reads it: not through a value its kernel realizes (the
// `*_realized` masks, estimate/fusion_groups.h's FusionGroups::realized;
// empty: none).
struct Materialized {
  Flags forward;
  Flags backward;
  bool sources_live_to_readers = true;
  bool write_in_place = true;
  Flags forward_realized;
  Flags backward_realized;
  // The backward's order starts at the first node that reads a tangent
  // (estimate/backward_order.h's append_backward_order says why); false: at every node
  // that is no recomputation.
  bool order_from_first_tangent_reader = false;
  // Per joint node, the backward kernel that computes it (FusionGroups::
  // kernel; -1: none). A kernel's stored values other than recomputed forward
  // values are allocated when its first node runs, as Inductor allocates a
  // kernel's outputs before launching it (peak_memory.cpp says why). Empty:
  // each value at its own node.
  std::vector<int32_t> backward_kernel;
  // The backward's kernels run whole (estimate/kernel_order.h).
  bool kernels_run_whole = false;
  // A fill that scatters copy runs at its first other reader, and their
  // copies are not fused (estimate/scatter_copies.h).
  bool fills_at_readers = false;
  // Three rules of Inductor's code generation (each with its reason in
  // peak_memory.cpp; BandwidthOptions' keys of the same names turn them off;
  // false here, on in the report): a matmul whose only reader is an add runs
  // at that add (estimate/matmul_at_add.h); buffers have Inductor's padded
  // layouts, and a pad into that padding is a view (estimate/inductor_padding.h);
  // a freed buffer waits for the next allocation of its size and dtype.
  bool matmul_at_add = false;
  bool padded_buffers = false;
  bool reuse_freed_buffers = false;
  // An op tagged pointwise is a fused op even outside PyTorch's fusible set
  // (BandwidthOptions::pointwise_tag_fuses): it may write in place.
  bool pointwise_tag_fuses = false;
  // A functional scatter's copy of its destination fuses with other copies
  // of that buffer close by, allocated together (peak_memory.cpp says why).
  bool fuse_scatter_copies = false;
};

// `timeline`, when given, also receives the memory over time
// (estimate/memory_timeline.h); the result is the same.
PeakMemory simulate_peak_memory(const Graph& g, const Classification& c, const Extraction& e, const OpClasses& ops,
                                const Materialized& materialized = {}, MemoryTimeline* timeline = nullptr);
// The same with g's op classes already looked up (analysis/node_op_classes.h).
PeakMemory simulate_peak_memory(const Graph& g, const Classification& c, const Extraction& e,
                                const NodeOpClasses& node_ops, const Materialized& materialized,
                                MemoryTimeline* timeline = nullptr);

// The same simulation in its two halves, for a caller that has the
// forward's masks before the backward's (the report costs the two passes on
// two threads, estimate/bandwidth_model.h): the forward half reads only the
// forward fields of `materialized` (and its rules); the backward half
// continues from what the forward left live. `node_ops` is the graph's
// NodeOpClasses (analysis/node_op_classes.h). A `timeline` is filled by
// the forward half and completed by the backward half: give both the same.
struct ForwardPeak {
  uint64_t input_bytes = 0;
  uint64_t saved_bytes = 0;
  uint64_t peak_bytes = 0;
  std::string peak_at;
  uint64_t live_after = 0;  // bytes alive when the forward ends
};
ForwardPeak simulate_forward_peak(const Graph& g, const Classification& c, const Extraction& e,
                                  const NodeOpClasses& node_ops, const Materialized& materialized,
                                  MemoryTimeline* timeline = nullptr);
PeakMemory simulate_backward_peak(const Graph& g, const Classification& c, const Extraction& e,
                                  const NodeOpClasses& node_ops, const Materialized& materialized,
                                  const ForwardPeak& forward, MemoryTimeline* timeline = nullptr);
// The backward half with the backward's masks given apart from `rules`
// (whose backward fields it ignores): for a caller that reads them from
// fusion groups still in use on another thread (estimate/bandwidth_model.cpp).
// `kernel` empty: each value allocated at its own node.
PeakMemory simulate_backward_peak(const Graph& g, const Classification& c, const Extraction& e,
                                  const NodeOpClasses& node_ops, const Materialized& rules, const Flags& stored,
                                  const Flags& realized, const std::vector<int32_t>& kernel,
                                  const ForwardPeak& forward, MemoryTimeline* timeline = nullptr);

}  // namespace pt
