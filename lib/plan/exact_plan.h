// The exact plan: the ILP of the linear model (plan/linear_plan_model.h)
// at one memory limit, solved through LEMON's MIP interface over GLPK with
// a time limit (partition/timed_glpk_mip.h). Binary s_v (save) and r_v
// (recompute) per decision value:
//   - a value the backward reads is saved or recomputed: s_v + r_v >= 1;
//   - recomputing v needs each decision value it reads saved or
//     recomputed (graph inputs are always there): r_v <= s_u + r_u;
//   - r_v = 0 where v may not be recomputed (plan/recomputable_values.h),
//     s_v = 0 where it may not be saved (plan/linear_plan_model.h);
//   - each peak row (plan/peak_rows.h): baseline + the bytes saved or
//     recomputed alive at its step <= the limit;
// minimizing the model's added seconds. Optimal means optimal under that
// linear model only; the planner predicts the answer with the full model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "plan/linear_plan_model.h"

namespace pt {

enum class ExactStatus {
  Optimal,     // GLPK proved the answer optimal
  WithinGap,   // GLPK proved it within the relative gap asked of the optimum
  TimeLimit,   // the time limit stopped it with a feasible answer
  NoAnswer,    // the time limit stopped it before any feasible answer
  Infeasible,  // no choice fits the limit under the linear model
};
const char* exact_status_name(ExactStatus s);

struct ExactSolution {
  ExactStatus status = ExactStatus::NoAnswer;
  // The answer's saved values, then the graph inputs and saved symbols
  // (when there is an answer); not sorted.
  std::vector<NodeId> saved;
  LinearChoice choice;        // the answer in the model's terms (when there is one)
  double objective = 0;       // its linear seconds
  double seconds = 0;         // time GLPK ran
  bool has_answer() const {
    return status == ExactStatus::Optimal || status == ExactStatus::WithinGap || status == ExactStatus::TimeLimit;
  }
};

// `time_limit_s` > 0; `relative_gap` 0 searches until the optimum is
// proven. Not thread-safe: GLPK keeps global state.
ExactSolution solve_exact(const LinearPlanModel& m, uint64_t limit, double time_limit_s, double relative_gap = 0);

}  // namespace pt
