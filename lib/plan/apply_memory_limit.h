// The pipeline's step after the default partition when memory_limit is
// set: the planner's plan (plan/memory_limit_plan.h) takes the default
// partition's place. The main command and diff call it, so a limit given
// with --set, --config or --memory-limit means the same everywhere.
#pragma once

#include <optional>

#include "settings/settings.h"
#include "pipeline/pipeline.h"
#include "plan/memory_limit_plan.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

namespace pt {

struct LimitedPlan {
  Settings settings;               // the plan's settings (the given ones without a limit)
  std::optional<MemoryPlan> plan;  // set when memory_limit > 0
};

// Without a limit p is left as it is. Throws InfeasibleError (one line)
// when no plan fits.
LimitedPlan apply_memory_limit(Partitioned& p, const Settings& s, const Device& device, const BandwidthOptions& o);

}  // namespace pt
