// Inductor's buffer reuse, as the peak simulation (peak_memory.cpp) needs
// it: which freed buffers later allocations take.
//
// Inductor's generated code does not free a dead buffer at once: its
// memory planning (torch/_inductor/codegen/wrapper.py, FreeIfNotReusedLine
// and AllocateLine; config.allow_buffer_reuse) puts it in a pool, and the
// next buffer it allocates with the same reuse key (device, dtype, storage
// size) takes the most recently pooled one ("bufN = bufM; del bufM  # reuse"
// in the generated code). The pooled buffer's memory stays allocated until
// then. It takes it when the buffer was freed by the kernel just before, or
// when holding it through the kernels between keeps Inductor's estimate of
// the graph's memory at or below that estimate's peak
// (AllocateLine.should_reuse_buffer); otherwise the buffer goes back to the
// pool. A buffer no allocation takes is freed where it died.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace pt {

// At position `at` of a pass's order, the buffer of the value at position
// `buffer` (allocated there, or freed after it).
struct BufferEvent {
  int32_t at = 0;
  int32_t buffer = 0;
  friend bool operator==(const BufferEvent&, const BufferEvent&) = default;
};

// The allocations that take a pooled buffer: `allocations` are those
// Inductor makes itself (a Triton kernel's or a matmul's output), `frees`
// those of buffers it pools when they die (no input of the pass), both in
// any order. A buffer's key is its value's size and dtype (Node::size_bytes,
// Node::dtype) in `order`'s graph `g`. `estimate` is Inductor's estimate of
// the bytes live at each position of the order, each buffer its own
// (without reuse, without writes in place): a buffer held from its free to
// position p-1 adds its bytes there, and must not raise that above the
// estimate's peak (a kernel frees its dead inputs after it runs, so an
// allocation at p takes only buffers freed before p). Returns
// (position of the allocation, position of the buffer it takes), in order.
std::vector<BufferEvent> plan_buffer_reuse(const Graph& g, const std::vector<NodeId>& order,
                                           std::vector<BufferEvent> allocations, std::vector<BufferEvent> frees,
                                           const std::vector<uint64_t>& estimate);

}  // namespace pt
