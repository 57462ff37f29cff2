#include "partition/ban_reason.h"

namespace pt {

std::string_view ban_reason_text(BanReason r) {
  switch (r) {
    case BanReason::None: return "";
    case BanReason::PrimalInput: return "cannot recompute: primal input";
    case BanReason::ForwardSeed: return "cannot recompute: forward RNG seed";
    case BanReason::MarkedMustSave: return "cannot recompute: marked MUST_SAVE";
    case BanReason::NotInAllowlist: return "cannot recompute: not in recomputable allowlist";
    case BanReason::RandomOp: return "cannot recompute: random op";
    case BanReason::ComputeIntensive: return "cannot recompute: compute intensive op";
    case BanReason::MaterializedInBackward: return "cannot recompute: materialized in backward";
    case BanReason::TooFar: return "cannot recompute: too far from backward";
    case BanReason::ReductionOp: return "cannot recompute: reduction op";
    case BanReason::UsedFarApart:
    case BanReason::LongFusibleChain: return "cannot recompute";
    case BanReason::RandomSeed: return "cannot recompute: random seed";
  }
  return "";
}

std::string_view ban_reason_detail(BanReason r) {
  switch (r) {
    case BanReason::UsedFarApart: return "cannot recompute: used far apart in the forward";
    case BanReason::LongFusibleChain: return "cannot recompute: ends a long fusible chain";
    default: return ban_reason_text(r);
  }
}

std::string_view ban_reason_setting(BanReason r) {
  switch (r) {
    case BanReason::NotInAllowlist: return "ban_recompute_not_in_allowlist";
    case BanReason::RandomOp:
    case BanReason::ComputeIntensive: return "random_ops / compute_intensive_ops";
    case BanReason::MaterializedInBackward: return "ban_recompute_materialized_backward";
    case BanReason::TooFar: return "max_dist_from_bw";
    case BanReason::ReductionOp: return "ban_recompute_reductions";
    case BanReason::UsedFarApart: return "ban_recompute_used_far_apart";
    case BanReason::LongFusibleChain: return "ban_recompute_long_fusible_chains";
    case BanReason::RandomSeed: return "ban_recompute_rng_seeds";
    default: return "";
  }
}

}  // namespace pt
