// `sweep --key memory_limit`: the planner's candidates are built once
// (plan/memory_limit_plan.h) and each limit picks its plan from them, so
// the rows are monotone by construction and cost one candidate set plus
// one partition per distinct plan chosen. A limit no plan fits is a row
// with an error (the planner's one line). The result also carries the
// activation_memory_budget grid's plans (knob_points) for the plot.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "settings/settings.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"
#include "report/sweep.h"

namespace pt {

// `values` as Settings::set reads memory_limit; 0 (no limit) rows are the
// default plan. Throws SettingsError for a value memory_limit refuses.
SweepResult run_memory_limit_sweep(const Graph& joint, const Settings& base, const std::vector<std::string>& values,
                                   const Device& device, const BandwidthOptions& o, unsigned jobs);

}  // namespace pt
