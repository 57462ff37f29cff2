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

// A copy_ whose destination is a graph input: a store of the kernel that
// computes the value (BandwidthOptions::fuse_input_copies says why).
bool copies_into_input(const Graph& g, NodeId id);

}  // namespace pt
