// How the peak simulation (peak_memory.cpp) records a MemoryTimeline: each
// pass's run leaves a PassTrace, in positions of the pass's order; these
// turn it into the timeline's lifetimes with their categories.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/classify.h"
#include "analysis/node_op_classes.h"
#include "estimate/buffer_reuse.h"
#include "estimate/memory_timeline.h"
#include "graph/graph.h"
#include "partition/extract.h"

namespace pt {

// What one pass's run tells a MemoryTimeline, in positions of its order:
// the lifetimes of the values it allocates (categories left to the caller),
// where the pass's inputs stop holding memory, its peak's position, and
// each node's buffer (`root`).
struct PassTrace {
  std::vector<ValueLifetime> allocated;
  std::vector<ValueLifetime> input_ends;  // node, last, reader
  size_t peak_pos = 0;
  std::vector<NodeId> root;
};

// A pass's lifetimes, in positions of its `order`, from where each value's
// bytes join and leave the total: a value allocates at allocated_at and is
// freed after freed_at (-1: neither); a buffer taken over by a fused output
// (`taken_at`: the buffer and the output's position) is its old owner's
// until the step before that output's, then the output's; a freed buffer
// that a later allocation takes (`reused`) is held for reuse from the step
// after its last reader to the step before that allocation. `own_bytes`:
// the bytes each position's buffer frees.
void trace_lifetimes(const Graph& g, const std::vector<NodeId>& order, const Flags& is_input,
                     const Flags& takes_over, const std::vector<int32_t>& allocated_at,
                     const std::vector<int32_t>& freed_at, const std::vector<std::pair<NodeId, size_t>>& taken_at,
                     const std::vector<BufferEvent>& reused, const std::vector<uint64_t>& own_bytes,
                     PassTrace& trace);

// The forward's part of a timeline: its inputs, live from the start, and
// what it allocates; a buffer of a saved value is Saved, of a forward
// output ForwardOutput, any other a temporary. Replaces what `t` held.
void record_forward(const Graph& g, const Classification& c, const Extraction& e, const NodeOpClasses& ops,
                    std::vector<NodeId> order, const PassTrace& trace, MemoryTimeline& t);

// The backward's part: what the forward left live carries on (saved values
// end at their last backward reader), the tangents join, and what the
// backward allocates follows (a buffer of a gradient is Gradient).
// `backward_peak`: the step's peak is the backward's.
void record_backward(const Graph& g, const Classification& c, const Extraction& e, const NodeOpClasses& ops,
                     const std::vector<NodeId>& order, const PassTrace& trace, bool backward_peak,
                     MemoryTimeline& t);

}  // namespace pt
