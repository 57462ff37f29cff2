// Inductor's padded layouts, as the peak simulation needs them.
//
// Comprehensive padding (torch/_inductor/ir.py, Layout._pad_strides;
// config.comprehensive_padding): a buffer a kernel computes that is no
// output of its graph gets strides rounded up, each one over 1024 elements
// (padding_stride_threshold) to a multiple of 128 bytes
// (padding_alignment_bytes); channels-last tensors keep theirs. A
// [8192, 30522] bfloat16 gradient is allocated as [8192, 30528]: the size
// of the padded logits, whose buffer it can then take over in place (the
// reuse key compares storage sizes).
//
// In-place padding (torch/_inductor/lowering.py, inplace_constant_pad_nd;
// config.inplace_padding): a constant_pad_nd whose only reader is a matmul,
// of a 2-D buffer the graph computes, padding its rows on the right into
// the room comprehensive padding left, is a view of that buffer: the pad
// kernel only fills the padding columns.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace pt {

// Bytes of the storage Inductor allocates for `id` when a kernel of the
// pass computes it and it is no output of the pass (comprehensive
// padding): 1 + sum((size - 1) x stride) elements at the padded strides;
// when `pad` pads it in place (pads_in_place), at the pad's sizes
// (GraphLowering.buffer_to_padded_size). The node's own size when its
// value is no tensor.
uint64_t padded_storage_bytes(const Graph& g, NodeId id, NodeId pad = kNoNode);

// Whether `pad` (an aten.constant_pad_nd) is Inductor's in-place padding
// of its input: read only by an aten.mm or aten.addmm, of a 2-D input that
// is no view, padded on the right of its rows only, into the room of the
// input's padded row stride. Whether that input is a buffer the pass
// computes (no input of the pass) is the caller's to check.
bool pads_in_place(const Graph& g, NodeId pad);

}  // namespace pt
