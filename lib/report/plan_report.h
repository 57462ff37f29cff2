// The report's `plan` section (memory_limit, plan/memory_limit_plan.h): the
// limit, the chosen plan's predicted peak and step time, how it was found,
// whether it is proven optimal under the model, the best plan PyTorch's
// knobs reach within the limit, and the next-best plan rejected and why.
#pragma once

#include <optional>
#include <ostream>

#include "plan/memory_limit_plan.h"

namespace pt {

class JsonWriter;

void write_plan_text(std::ostream& out, const MemoryPlan& plan);
// "plan": {...}, or null without a memory limit.
void write_plan_json(JsonWriter& w, const std::optional<MemoryPlan>& plan);
void write_plan_markdown(std::ostream& out, const MemoryPlan& plan);
// The same as an HTML section (the HTML report's, after its summary).
void write_plan_html(std::ostream& out, const MemoryPlan& plan);

}  // namespace pt
