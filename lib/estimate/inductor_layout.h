// Inductor's layout optimization (torch/_inductor/graph.py,
// GraphLowering.decide_layout_opt and find_nodes_prefer_channels_last): in
// a training graph whose convolutions gain from it, Inductor lays the
// convolutions' inputs and outputs, and the values between them, out
// channels-last, whatever the strides the traced graph records. A model
// run in NCHW (ConvMixer, PoolFormer) then reduces BatchNorm statistics
// across rows of C channels, as a channels-last one does, and Inductor
// splits those reductions; read at the recorded strides, they were
// reductions along contiguous rows, ConvMixer's 65 recomputed statistics
// kernels 11 us short each (1.07 ms of a 2.17 ms step-time change).
#pragma once

#include <cstdint>
#include <vector>

#include "estimate/bandwidth_options.h"
#include "graph/flags.h"
#include "graph/graph.h"

namespace pt {

// Whether Inductor's layout optimization applies to the forward of joint
// graph `g` (decide_layout_opt for training): it has convolutions, at
// least one per 300 forward nodes, none grouped with more than one input
// channel per group, none with a kernel wider than 1 and at least twice
// as many input channels as output channels, and not all with at most 64
// input and output channels.
bool inductor_lays_out_channels_last(const Graph& g);

// Per node of `g`, whether Inductor lays its value out channels-last where
// it is 4-D (empty when the optimization does not apply): in the forward,
// the convolutions, what feeds them and what they feed up to the last one
// (find_nodes_prefer_channels_last; a bmm stops it); anywhere, a value
// computed from such a value, as Inductor's kernels follow their inputs'
// layout and the backward's saved inputs keep the forward's, except
// through a view or a matmul: an attention score computed from a
// convolution's output through a 3-D matmul keeps its recorded strides.
Flags channels_last_values(const Graph& g);

// The same under `o`: empty where its inductor_layout_optimization is off.
// Computed once per estimate; every kernel grouping of it reads the table.
Flags channels_last_values(const Graph& g, const BandwidthOptions& o);

// The strides Inductor gives tensor value `t`: its recorded strides, or,
// where `channels_last` (its node's channels_last_values) and `t` is a 4-D
// tensor of more than one channel laid out contiguously (NCHW; so is one
// without recorded strides), the channels-last strides of its shape.
std::vector<int64_t> inductor_strides(const proto::TensorMeta& t, bool channels_last);

}  // namespace pt
