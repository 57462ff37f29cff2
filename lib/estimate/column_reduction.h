// Reductions across rows, and those Inductor splits in two, for the
// bandwidth model's time of the kernels that hold them (pass_cost.cpp,
// Device::column_reduction): a reduction that
// keeps its input's innermost (stride-1) axis sums, for each output, elements
// that lie a row apart in memory. A per-channel statistic of a channels-last
// activation is one (BatchNorm's mean and variance, and its backward's sums,
// over N, H and W for each channel C): each row is C contiguous elements,
// and Inductor's kernels for few channels read those short rows well below
// the copy bandwidth (device.cpp says how far).
#pragma once

#include <cstdint>

#include "graph/flags.h"
#include "graph/graph.h"

namespace pt {

// The contiguous bytes of each row that reduction `id` keeps whole: the
// innermost axes of its input that it does not reduce, as far as they are
// contiguous, times the item size of the tensor it reads from memory (an
// upcast to float32 inside the kernel looked through). 0 when `id` reduces
// its input's innermost axis, reduces every axis, or is no reduction over
// listed dimensions.
// `channels_last`: the graph's channels_last_values (inductor_layout.h),
// which decide the strides of the input read; empty: the recorded ones.
uint64_t column_reduction_row_bytes(const Graph& g, NodeId id, const Flags& channels_last);

// The elements each output of `id` reduces, where it reduces over listed
// dimensions that include its input's innermost (stride-1) axis: a
// reduction along rows (a LayerNorm's statistics, a softmax's max and sum).
// 0 for any other reduction.
uint64_t row_reduction_length(const Graph& g, NodeId id, const Flags& channels_last);

// Whether Inductor splits reduction `id` into two kernels on a device of
// `multiprocessors` SMs (torch/_inductor/ir.py, Reduction.num_splits): a
// kernel of partial results, then one that combines them. Across rows (the
// innermost axis kept) when there are fewer than 64 outputs per
// multiprocessor and each reduces more than 128 elements (BatchNorm's
// statistics, a bias gradient); along rows when there are fewer than 2 per
// multiprocessor and each reduces more than 8192 (a loss's sum). False
// when `multiprocessors` is 0 or `id` is no reduction over listed
// dimensions.
bool is_split_reduction(const Graph& g, NodeId id, int multiprocessors, const Flags& channels_last);

// Whether Inductor runs a sum across rows and a reduction along rows of one
// input of `rows` x `columns` elements in one kernel, its mix-order
// reduction (torch/_inductor/scheduler.py, MixOrderReduction.can_fuse): the
// row reduction persistent, the column sums kept per block and added by a
// small second kernel. A LayerNorm's or RMSNorm's backward, whose weight
// and bias gradients sum across the rows the input gradient's statistics
// sum along. Only where the input is large (5 Mi elements; smaller ones
// stay in L2), has at least twice as many rows as columns and 4096 rows,
// and at most 16384 columns: Llama's (8192 x 1024) and ConvNeXt-T's first
// stages fuse, ViT-B/16's (6304 x 768) does not (Inductor's generated
// code on the H100).
bool mix_order_reducible(uint64_t rows, uint64_t columns);

}  // namespace pt
