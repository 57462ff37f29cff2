#include "plan/apply_memory_limit.h"

namespace pt {

LimitedPlan apply_memory_limit(Partitioned& p, const Settings& s, const Device& device, const BandwidthOptions& o) {
  LimitedPlan out{s, std::nullopt};
  if (!s.memory_limit.on()) return out;
  const PlanCandidates candidates = plan_candidates(p.prepared.graph, s, device, o);
  out.plan = choose_plan(candidates, s.memory_limit);
  certify_plan(*out.plan, candidates, p.prepared.graph, s, device, o);
  out.settings = plan_settings(s, out.plan->chosen);
  p.result = partition_plan(p.prepared.graph, s, out.plan->chosen);
  return out;
}

}  // namespace pt
