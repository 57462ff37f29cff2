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

// Per position of a pass's `order`, where the value there is allocated
// when that is before its own place (-1: at its own place; empty: every
// value at its own place): a scatter's copy joins the first copy of its
// destination buffer (`root`, the buffer of each node: a view's base) that
// lies at most 64 buffers before it, buffers counted as the pass's values
// that hold memory (no input of the pass, `is_input`; stored, `stored`, or
// a tuple's item, `item`; `stored` empty: every value).
std::vector<int32_t> scatter_copy_positions(const Graph& g, const std::vector<NodeId>& order, const Flags& is_input,
                                            const std::vector<NodeId>& root, const Flags& stored, const Flags& item);

}  // namespace pt
