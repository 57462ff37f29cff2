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
//     rate, and for an op no kernel fuses its loads and stores; a fusible
//     op recomputed inside the backward's kernel costs what it reads,
//     which the values it reads pay (saved: loaded; recomputed: theirs).
// Peak, under the run order of a reference plan (the settings as given):
// each step's live bytes less what that plan saved and recomputed
// ("baseline"), plus the bytes of the values the plan saves that are alive
// there (forward: from the step that computes them; backward: until the
// last backward node that reads them or what is computed from them) and of
// the values it recomputes (from the first to the last such reader). Steps
// that another step dominates are left out.
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

struct LinearStep {
  uint64_t baseline = 0;             // bytes live whatever the plan decides
  std::vector<int32_t> saved_live;   // decision values alive here when saved
  std::vector<int32_t> recomputed_live;  // ... when recomputed
  NodeId node = kNoNode;             // the reference plan's node at this step
};

struct LinearPlanModel {
  std::vector<NodeId> values;                // the decision values, graph order
  std::vector<int32_t> index;                // per node: its position in values, -1 if none
  std::vector<uint8_t> needed;               // per value: a backward node reads it
  std::vector<uint8_t> may_recompute;        // per value (plan/recomputable_values.h)
  std::vector<std::vector<int32_t>> inputs;  // per value: the decision values it reads
  std::vector<uint64_t> bytes;
  std::vector<double> save_seconds, recompute_seconds;
  std::vector<LinearStep> steps;             // the steps that can be peaks
  std::vector<NodeId> saved_symbols;         // saved by every plan (the reference plan's)
  // The forward's graph inputs, offered to every plan's backward: they
  // hold memory all step anyway, and the extraction drops those unread.
  std::vector<NodeId> graph_inputs;
};

// `reference`: the partition under `s` (its run order, classification and op lookups).
LinearPlanModel build_linear_model(const Graph& prepared, const PartitionResult& reference, const Settings& s,
                                   const Device& device, const BandwidthOptions& o);

// The model's view of a plan: which values it saves and recomputes.
struct LinearChoice {
  std::vector<uint8_t> saved, recomputed;  // per decision value
};
LinearChoice linear_choice(const LinearPlanModel& m, const PartitionResult& plan);
double linear_seconds(const LinearPlanModel& m, const LinearChoice& c);
uint64_t linear_peak(const LinearPlanModel& m, const LinearChoice& c);

}  // namespace pt
