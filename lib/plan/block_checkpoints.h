// Candidates of the memory-limit planner that users know from
// torch.utils.checkpoint: a model's repeated blocks recompute in the
// backward everything inside them from what enters them. A block is a
// module path cut after its first numbered part ("blocks.3", "layer2.1",
// "model.layers.0"); the candidates checkpoint the first k blocks in the
// forward's order, for k from 1 to all of them (at most kBlockSteps values
// of k, spread evenly), and keep the settings' own choices outside them.
// The first blocks go first: their saved values live longest, so they are
// live at the backward's late peaks too (a CNN's stem).
//
// Why: the per-value search moves from a knob plan by a few values at a
// time and stops where no such move lowers the peak; on gpt2_124m it
// stopped at 1.27 GB, 53% of the default plan's peak, where checkpointing
// every block, a move of hundreds of values, goes lower. The exact plan
// finds such plans, but only on graphs of at most kExactMaxNodes nodes
// and within its time limit. Off: memory_limit_block_checkpoints=false.
//
// Values that may not be recomputed (plan/recomputable_values.h) stay
// saved inside a checkpointed block, so the maths of training is unchanged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "partition/partitioner.h"
#include "settings/settings.h"
#include "plan/plan_candidate.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

namespace pt {

inline constexpr int kBlockSteps = 16;

// The module path up to its first numbered part after the root ("L['m']"):
// "L['m'].blocks.3" of "L['m'].blocks.3.fc"; a part is numbered when it is
// a number or ends in "_" and one ("encoder_layer_3", torchvision's ViT).
// Empty where no part is.
std::string block_prefix(std::string_view path);

// Per node of `g`: its block's index, in the order blocks first run in the
// forward, or -1 (no numbered module, or not a forward op).
std::vector<int> forward_blocks(const Graph& g, const PartitionResult& lent);

// The candidates, partitioned and predicted on `jobs` threads; none where
// the graph has fewer than two blocks. `lent` is the settings' own
// partition of `prepared` (its saved set is kept outside the blocks).
std::vector<PlanCandidate> block_checkpoint_candidates(const Graph& prepared, const PartitionResult& lent,
                                                       const Settings& s, const Device& device,
                                                       const BandwidthOptions& o, unsigned jobs);

}  // namespace pt
