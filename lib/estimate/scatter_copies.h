// Where Inductor allocates the copies that functional scatters write into.
//
// Inductor lowers a functional scatter (index_put, scatter, scatter_add,
// scatter_reduce) as a copy of its destination, a kernel of its own, then
// an in-place scatter into the copy (torch/_inductor/lowering.py,
// index_put: index_put_impl_(clone(x), ...)). Copies of one buffer are
// kernels that read the same buffer, which Inductor fuses into one
// (horizontal fusion) when they are at most 64 nodes apart in its schedule
// (Scheduler.are_long_distant_nodes); the fused kernel runs where the first
// copy would, and allocates every copy there.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace pt {

// Whether `n` is a functional scatter that Inductor lowers as a copy of its
// destination and a scatter into the copy.
bool is_copying_scatter(const Node& n);

// Whether `id` is a constant fill: computed (no placeholder) from no tensor
// (aten.full, zeros; only symbolic sizes as inputs).
bool is_fill(const Graph& g, NodeId id);

// Whether the copying scatter `reader` copies the fill `fill` (its
// destination): Inductor writes the constant straight into the scatter's
// own buffer (BandwidthOptions::fills_at_readers).
bool scatter_copies_fill(const Graph& g, NodeId fill, NodeId reader);

// Moves each fill `order` computes (a pass's nodes in the order they run;
// `is_input`: what the pass reads, which stays) to just
// before its first reader that does not copy it (an ATen fallback such as
// index_add, which reads the one buffer Inductor realizes for it there:
// moe_top2's backward allocates its zero fill at the first index_add, after
// the index_put copies before it that each write a fill of their own). A
// fill that only scatters copy stays where it is (it holds no memory).
void run_fills_at_readers(const Graph& g, const Flags& is_input, std::vector<NodeId>& order);

// Per position of a pass's `order`, where the value there is allocated
// when that is before its own place (-1: at its own place; empty: every
// value at its own place): a scatter's copy joins the first copy of its
// destination buffer (`root`, the buffer of each node: a view's base) that
// lies at most 64 buffers before it, buffers counted as the pass's values
// that hold memory (no input of the pass, `is_input`; stored, `stored`, or
// a tuple's item, `item`; `stored` empty: every value).
// With `fills_at_readers`, copies of a fill the pass computes are each at
// their own place.
std::vector<int32_t> scatter_copy_positions(const Graph& g, const std::vector<NodeId>& order, const Flags& is_input,
                                            const std::vector<NodeId>& root, const Flags& stored, const Flags& item,
                                            bool fills_at_readers);

}  // namespace pt
