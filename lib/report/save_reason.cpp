#include "report/save_reason.h"

#include <array>

#include "partition/ban_reason.h"

namespace pt {

std::string_view ban_label(BanReason why) {
  switch (why) {
    case BanReason::None: return "";
    case BanReason::PrimalInput: return "ban: primal input";
    case BanReason::ForwardSeed: return "ban: forward RNG seed";
    case BanReason::MarkedMustSave: return "ban: MUST_SAVE";
    case BanReason::NotInAllowlist: return "ban: not in allowlist";
    case BanReason::RandomOp: return "ban: random op";
    case BanReason::ComputeIntensive: return "ban: compute intensive";
    case BanReason::MaterializedInBackward: return "ban: materialized in bw";
    case BanReason::TooFar: return "ban: too far from bw";
    case BanReason::ReductionOp: return "ban: reduction op";
    case BanReason::UsedFarApart: return "ban: used far apart";
    case BanReason::LongFusibleChain: return "ban: long fusible chain";
    case BanReason::RandomSeed: return "ban: random seed";
  }
  return "";
}

const SaveReason& save_reason(const Graph& g, const PartitionResult& r, NodeId id) {
  static const SaveReason kParameter{
      "parameter", "parameter",
      "a parameter or buffer: a graph input that lives for the whole step (free to save with "
      "treat_parameters_as_free_to_save)",
      ""};
  static const SaveReason kInput{"input", "graph input",
                                 "a graph input: nothing in the forward computes it, so it cannot be recomputed", ""};
  static const SaveReason kSymbol{"symbol", "symbolic size",
                                  "a symbolic size the backward's shapes need (saving costs one integer)", ""};
  static const SaveReason kMustSave{"must_save", "MUST_SAVE tag", "the activation-checkpointing policy marks it MUST_SAVE",
                                    ""};
  static const SaveReason kMinCut{
      "min_cut", "min cut: cheaper",
      "the minimum cut: saving it costs less than recomputing it (or what recomputing it would need)",
      "dist_from_bw_base"};
  static const SaveReason kPlanned{
      "memory_limit_plan", "memory-limit plan",
      "the memory-limit planner's plan saves it (the report's plan section says how that plan was found)",
      "memory_limit"};
  static const std::array<SaveReason, kBanReasonCount> kBanned = [] {
    std::array<SaveReason, kBanReasonCount> out{};
    for (size_t k = 0; k < kBanReasonCount; ++k) {
      const auto why = static_cast<BanReason>(k);
      out[k] = {"banned", ban_label(why), ban_reason_detail(why), ban_reason_setting(why)};
    }
    return out;
  }();
  const Node& n = g[id];
  if (n.input_kind == InputKind::Primal || n.input_kind == InputKind::FwdSeed) {
    return g.static_lifetime[id] ? kParameter : kInput;
  }
  if (n.value_kind == ValueKind::Sym) return kSymbol;
  if (r.saved_set_given) return n.recompute == Recompute::MustSave ? kMustSave : kPlanned;
  const BanReason why = r.solution.network.banned.empty() ? BanReason::None : r.solution.network.banned[id];
  if (why == BanReason::MarkedMustSave) return kMustSave;
  if (why != BanReason::None) return kBanned[static_cast<size_t>(why)];
  return kMinCut;
}

}  // namespace pt
