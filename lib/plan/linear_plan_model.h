// The exact plan's model (plan/exact_plan.h): the save-or-recompute choice
// of every forward value the backward needs, with its time and its peak
// made linear so that an ILP can decide them all at once.
//
// Decision values: the forward's call_function nodes (symbols aside) that
// the backward reads, and everything they are computed from back to the
// graph's inputs (available all step, never a decision). Each one is
// saved (s_v), recomputed (r_v), or neither.
//
// Time, in seconds of the bandwidth model's device (linear, per value):
//   - saving v: the backward loads it once, and a fusible value that the
//     forward would keep in registers is stored once more;
//   - recomputing v: its FLOPs at the device's matmul (or convolution)
//     rate, and for an op no kernel fuses its loads and stores. A fusible
//     op recomputed where an unfusible op reads it is stored there: its
//     inputs loaded, itself written and read; else it is computed inside
//     each backward kernel that reads it, each loading its inputs, the
//     first paid by the values it reads (saved: loaded; recomputed:
//     theirs). The default plan's own recomputations keep their first
//     kernel's price: the default's backward already reads them there.
// Peak, under the run order of a reference plan (the settings as given):
// per step, a term for each decision value alive there when saved (forward:
// from the step that computes it; backward: until the last backward node
// that reads it or what is computed from it) and when recomputed and stored
// (from the first to the last such reader), plus a baseline: what the
// reference plan's simulation holds there beyond its own terms
// (plan/peak_rows.h). The reference plan's rows read its simulated bytes.
// Steps that another step dominates are left out. The exact plan adds rows
// learned from the simulations of its own plans (constraint generation,
// plan/exact_candidate.h).
// The full model (plan/plan_candidate.h's predict_plan) judges the plan the
// ILP returns: this model only proposes it.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

namespace pt {

// A decision value's bytes at a step when the plan saves (or recomputes) it.
struct LinearTerm {
  int32_t value = 0;
  uint64_t bytes = 0;
};

struct LinearStep {
  uint64_t baseline = 0;               // bytes live whatever the plan decides
  std::vector<LinearTerm> saved;       // decision values alive here when saved
  std::vector<LinearTerm> recomputed;  // ... when recomputed
  NodeId node = kNoNode;               // the node running at this step
};

// The model's view of a plan: which values it saves and recomputes.
struct LinearChoice {
  std::vector<uint8_t> saved, recomputed;  // per decision value
};

struct LinearPlanModel {
  std::vector<NodeId> values;                // the decision values, graph order
  std::vector<int32_t> index;                // per node: its position in values, -1 if none
  std::vector<uint8_t> needed;               // per value: a backward node reads it
  std::vector<uint8_t> may_recompute;        // per value (plan/recomputable_values.h)
  // Per value: 0 for a view of a graph input that may be recomputed. It
  // holds no memory of its own and costs nothing either way, but saved it
  // becomes a backward input of its own, and the peak simulation frees its
  // bytes after its last backward reader though the graph input it views
  // stays (estimate/peak_memory.h): a plan saving it would be predicted
  // below the memory it takes. Recomputed from the input (offered to every
  // backward), it costs the same and is simulated as it runs.
  std::vector<uint8_t> may_save;
  std::vector<std::vector<int32_t>> inputs;  // per value: the decision values it reads
  std::vector<uint64_t> bytes;
  std::vector<NodeId> buffer;                // per value: the node whose memory it is (a view's base)
  // Per value: the bytes it holds recomputed in the backward. A view, and a
  // fusible op no unfusible op reads, recomputed there is computed inside
  // the kernels that read it and stored by none (estimate/fusion_groups.h):
  // 0. Counting its bytes from its first reader to its last made the
  // default plan's recomputed cross-entropy chain on gpt2_124m 0.87 of its
  // peak where the simulation stores none of it. Where a simulation does
  // store one, the row read from it counts it (plan/peak_rows.h).
  std::vector<uint64_t> recomputed_bytes;
  std::vector<double> save_seconds, recompute_seconds;
  std::vector<LinearStep> steps;             // the steps that can be peaks, then the rows learned
  int learned_rows = 0;                      // of steps: learned from the exact plan's simulations
  // Where the live sets come from (plan/peak_rows.h): per node,
  // its position among the backward's own nodes in the reference plan's
  // order (-1: none); per value, the first and last such position that
  // reads it or a value computed from it (-1 last: none).
  std::vector<int32_t> position;
  std::vector<int32_t> first_reader, last_reader;
  // The reference plan: its choice, and per backward position what it
  // holds beyond the terms of backward_row (plan/peak_rows.h).
  LinearChoice reference;
  std::vector<uint64_t> reference_baseline;
  uint64_t reference_peak = 0;               // its simulated peak
  std::vector<NodeId> saved_symbols;         // saved by every plan (the reference plan's)
  // The forward's graph inputs, offered to every plan's backward: they
  // hold memory all step anyway, and the extraction drops those unread.
  std::vector<NodeId> graph_inputs;
};

// `reference`: the partition under `s` (its run order, classification and op lookups).
LinearPlanModel build_linear_model(const Graph& prepared, const PartitionResult& reference, const Settings& s,
                                   const Device& device, const BandwidthOptions& o);

LinearChoice linear_choice(const LinearPlanModel& m, const PartitionResult& plan);
double linear_seconds(const LinearPlanModel& m, const LinearChoice& c);
// The step's bytes under the choice.
uint64_t step_bytes(const LinearStep& step, const LinearChoice& c);
uint64_t linear_peak(const LinearPlanModel& m, const LinearChoice& c);

}  // namespace pt
