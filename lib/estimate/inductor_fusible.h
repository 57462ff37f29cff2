// Ops that Inductor fuses into a kernel though PyTorch's fusible set
// (analysis/node_op_classes.h) does not list them; each with the
// BandwidthOptions key that turns it off.
#pragma once

#include "graph/graph.h"

namespace pt {

// Inductor lowers every op tagged pointwise to a pointwise loop and fuses
// it, whether or not PyTorch's fusible set lists it: prims.fma, the last
// op of a decomposed softmax backward, is in no class. As a kernel of its
// own it stored its two [16, 12, 512, 512] float32 inputs in each of
// bert_mlm's attention layers, 0.18 GB above the measured peak (Inductor's
// generated code on the H100 computes the softmax backward in one kernel).
// Off: --bandwidth-option pointwise_tag_fuses=false.
bool tagged_pointwise(const Graph& g, NodeId id);

// aten.select_scatter and aten.slice_scatter: Inductor lowers each to a
// pointwise loop over the destination (torch/_inductor/lowering.py: a
// where() between the source, at the selected positions, and the
// destination), so it fuses with its producers and readers, and a zeros
// destination (the backward of a select or slice) is a constant, never
// read. As kernels of their own, each of ViT-B/16's 12 attention layers
// charged three 29 MB copies and an add that read them again: 0.11 ms a
// layer where the H100 ran one 18-us kernel reading the three 9.7 MB
// gradients. Off: --bandwidth-option slice_scatters_fuse=false.
bool is_slice_scatter(const Graph& g, NodeId id);

// aten.max_pool2d_with_indices_backward and aten.avg_pool2d_backward:
// Inductor lowers each to a pointwise gather that, for each input element,
// visits the pooling windows that can hold it, ceil(k / s) per axis
// (torch/_inductor/lowering.py), and fuses it with its readers (a residual
// add, a GroupNorm backward's reductions) and, for max-pooling, with the
// conversion of the saved offsets to indices, which it never stores. Its
// window taps bound the kernel, not its bytes: a ResNet stem's max-pooling
// gradient (64 x 64 x 112 x 112, 3x3 windows, stride 2: 4 taps an element)
// took 350-366 us on one H100 in four channels-last models where its bytes
// take under 60 (Device::pool_tap_seconds). Off: --bandwidth-option
// pooling_gradients_fuse=false.
bool is_pooling_gradient(const Graph& g, NodeId id);

// The window taps each element of pooling gradient `id` gathers: the
// product over its axes of ceil(kernel / stride) (stride defaulting to the
// kernel); 0 for any other node or where the sizes are not literal.
uint64_t pooling_gradient_taps(const Graph& g, NodeId id);

// A copy_ whose destination is a graph input: a store of the kernel that
// computes the value (BandwidthOptions::fuse_input_copies says why).
bool copies_into_input(const Graph& g, NodeId id);

}  // namespace pt
