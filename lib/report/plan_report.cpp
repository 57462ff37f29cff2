#include "report/plan_report.h"

#include "graph/human_units.h"
#include "report/json_writer.h"
#include "report/svg_chart.h"

#include <string>
#include <utility>
#include <vector>

namespace pt {

namespace {

std::string plan_line(const PlanCandidate& c) {
  return human_bytes(c.peak_bytes) + " peak, " + human_seconds(c.step_seconds) + " step: " + c.description();
}

void candidate_json(JsonWriter& w, std::string_view key, const PlanCandidate& c) {
  w.key(key);
  w.begin_object();
  w.field("family", std::string(family_name(c.family)));
  w.field("knob", c.description());
  w.field("peak_bytes", c.peak_bytes);
  w.field("peak_at", c.peak_at);
  w.field("peak_pass", c.peak_pass);
  w.field("step_seconds", c.step_seconds);
  w.end_object();
}

// The plans the Markdown and HTML tables list, labelled.
std::vector<std::pair<const char*, const PlanCandidate*>> plan_rows(const MemoryPlan& plan) {
  std::vector<std::pair<const char*, const PlanCandidate*>> rows{{"chosen", &plan.chosen}};
  if (plan.best_knob) rows.emplace_back("best knob", &*plan.best_knob);
  if (plan.rejected) rows.emplace_back("next best (rejected)", &*plan.rejected);
  return rows;
}

// The sentence under those tables: how the plan was found and what it beat.
std::string plan_findings(const MemoryPlan& plan) {
  std::string out = "Found by " + std::string(family_name(plan.chosen.family)) + ". " +
                    (plan.proven_optimal ? "Proven" : "Not proven") + " optimal: " + plan.optimality + ".";
  if (!plan.best_knob) out += " None of PyTorch's knob plans fits.";
  if (plan.rejected) out += " Next best rejected: " + plan.rejected_why + ".";
  return out;
}

}  // namespace

void write_plan_text(std::ostream& out, const MemoryPlan& plan) {
  out << "\nPlan (memory_limit " << limit_text(plan.limit, plan.limit_fraction, plan.default_peak) << ")\n";
  out << "  chosen         " << plan_line(plan.chosen) << "\n";
  out << "  found by       " << family_name(plan.chosen.family) << "\n";
  out << "  optimal        " << (plan.proven_optimal ? "proven" : "not proven") << ": " << plan.optimality << "\n";
  if (plan.best_knob) out << "  best knob      " << plan_line(*plan.best_knob) << "\n";
  else out << "  best knob      none of PyTorch's knob plans fits\n";
  if (plan.rejected) out << "  next best      " << plan_line(*plan.rejected) << " (rejected: " << plan.rejected_why << ")\n";
  out << "  search         " << plan.candidate_count << " candidates (" << plan.knob_count << " knob, " << plan.block_count << " block, "
      << plan.exact_count
      << " exact) in " << human_seconds(plan.search_seconds) << "\n";
}

void write_plan_json(JsonWriter& w, const std::optional<MemoryPlan>& plan) {
  w.key("plan");
  if (!plan) {
    w.null_value();
    return;
  }
  w.begin_object();
  w.field("memory_limit", plan->limit);
  w.key("memory_limit_fraction");
  if (plan->limit_fraction > 0) w.value(plan->limit_fraction);
  else w.null_value();
  w.field("default_peak_bytes", plan->default_peak);
  w.field("peak_bytes", plan->chosen.peak_bytes);
  w.field("step_seconds", plan->chosen.step_seconds);
  w.field("found_by", std::string(family_name(plan->chosen.family)));
  w.field("proven_optimal", plan->proven_optimal);
  w.field("optimality", plan->optimality);
  for (const auto& [key, value] : {std::pair{"linear_seconds", plan->linear_seconds},
                                   std::pair{"linear_optimum_seconds", plan->linear_optimum_seconds}}) {
    w.key(key);
    if (value) w.value(*value);
    else w.null_value();
  }
  candidate_json(w, "chosen", plan->chosen);
  if (plan->best_knob) candidate_json(w, "best_knob", *plan->best_knob);
  else {
    w.key("best_knob");
    w.null_value();
  }
  if (plan->rejected) {
    candidate_json(w, "rejected", *plan->rejected);
    w.field("rejected_why", plan->rejected_why);
  } else {
    w.key("rejected");
    w.null_value();
  }
  w.field("candidates", static_cast<uint64_t>(plan->candidate_count));
  w.field("knob_candidates", static_cast<uint64_t>(plan->knob_count));
  w.field("block_candidates", static_cast<uint64_t>(plan->block_count));
  w.field("exact_candidates", static_cast<uint64_t>(plan->exact_count));
  w.end_object();
}

void write_plan_markdown(std::ostream& out, const MemoryPlan& plan) {
  out << "\n### Plan (memory_limit " << limit_text(plan.limit, plan.limit_fraction, plan.default_peak) << ")\n\n";
  out << "| | peak | step | plan |\n|---|---:|---:|---|\n";
  for (const auto& [what, c] : plan_rows(plan)) {
    out << "| " << what << " | " << human_bytes(c->peak_bytes) << " | " << human_seconds(c->step_seconds) << " | "
        << c->description() << " |\n";
  }
  out << "\n" << plan_findings(plan) << "\n";
}

void write_plan_html(std::ostream& out, const MemoryPlan& plan) {
  out << "<h2>Plan (memory_limit " << limit_text(plan.limit, plan.limit_fraction, plan.default_peak) << ")</h2>\n<table class=\"summary\">\n"
      << "<tr><th></th><th>peak</th><th>step</th><th>plan</th></tr>\n";
  for (const auto& [what, c] : plan_rows(plan)) {
    out << "<tr><th>" << what << "</th><td>" << human_bytes(c->peak_bytes) << "</td><td>"
        << human_seconds(c->step_seconds) << "</td><td>" << xml(c->description()) << "</td></tr>\n";
  }
  out << "</table>\n<p class=\"sub\">" << xml(plan_findings(plan)) << "</p>\n";
}

}  // namespace pt
