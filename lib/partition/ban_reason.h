// Why a node may not be recomputed (a source -> X_in edge in the network).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pt {

enum class BanReason : uint8_t {
  None,
  PrimalInput,             // graph inputs cannot be recomputed
  ForwardSeed,             // forward RNG seeds neither
  MarkedMustSave,          // activation-checkpointing policy MUST_SAVE
  NotInAllowlist,          // ban_recompute_not_in_allowlist
  RandomOp,                // without the allowlist: random ops
  ComputeIntensive,        // without the allowlist: matmuls, convolutions, attention
  MaterializedInBackward,  // ban_recompute_materialized_backward
  TooFar,                  // max_dist_from_bw
  ReductionOp,             // ban_recompute_reductions
  UsedFarApart,            // ban_recompute_used_far_apart (chain heuristic)
  LongFusibleChain,        // ban_recompute_long_fusible_chains (chain heuristic)
  RandomSeed,              // ban_recompute_rng_seeds: a seed, its lookups, unseeded random ops
};
// How many values BanReason has (RandomSeed is the last): per-reason tables.
inline constexpr size_t kBanReasonCount = static_cast<size_t>(BanReason::RandomSeed) + 1;

// PyTorch's text for the reason, as recorded in its flow network
// ("cannot recompute: primal input"; both chain heuristics say "cannot recompute").
std::string_view ban_reason_text(BanReason r);
// A short explanation for reports, telling the two chain heuristics apart.
std::string_view ban_reason_detail(BanReason r);
// The setting that switches the ban off ("" when none does).
std::string_view ban_reason_setting(BanReason r);

}  // namespace pt
