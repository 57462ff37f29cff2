// The exact knapsack as a MIP, solved by GLPK (the MIP backend LEMON uses on
// Debian) through its own API: LEMON's Mip offers no time limit, and GLPK's
// branch and bound may run for hours on a few hundred items of near-equal
// ratio (gpt2_124m at budget 0.5). The steps are LEMON's GlpkMip::solve:
// the LP relaxation by dual simplex, then branch and bound, so the answers
// are the ones LEMON gave when the search finishes in time.
#include <glpk.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "budget/knapsack.h"

namespace pt {

namespace {

struct ProblemDeleter {
  void operator()(glp_prob* p) const { glp_delete_prob(p); }
};

int milliseconds(double seconds) {
  const double ms = std::ceil(seconds * 1000);
  return ms >= static_cast<double>(INT_MAX) ? INT_MAX : std::max(1, static_cast<int>(ms));
}

std::string seconds_text(double seconds) {
  std::string text = std::to_string(seconds);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

KnapsackResult ilp_knapsack(const std::vector<double>& memory, const std::vector<double>& runtime,
                            double max_memory, double time_limit_s) {
  if (memory.size() != runtime.size()) {
    throw std::invalid_argument("ilp knapsack: " + std::to_string(memory.size()) + " memories but " +
                                std::to_string(runtime.size()) + " runtimes");
  }
  const int n = static_cast<int>(memory.size());
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(memory[i]) || !std::isfinite(runtime[i])) {
      throw std::invalid_argument("ilp knapsack: item " + std::to_string(i) + " is not finite");
    }
  }
  if (!std::isfinite(max_memory)) throw std::invalid_argument("ilp knapsack: max_memory is not finite");
  if (!(time_limit_s > 0)) throw std::invalid_argument("ilp knapsack: the time limit must be positive");
  KnapsackResult result;
  if (n == 0) return result;

  glp_term_out(GLP_OFF);
  std::unique_ptr<glp_prob, ProblemDeleter> lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), GLP_MAX);
  glp_add_rows(lp.get(), 1);
  glp_set_row_bnds(lp.get(), 1, GLP_UP, 0, max_memory);
  glp_add_cols(lp.get(), n);
  std::vector<int> rows(static_cast<size_t>(n) + 1, 1), cols(static_cast<size_t>(n) + 1);
  std::vector<double> values(static_cast<size_t>(n) + 1);
  for (int i = 0; i < n; ++i) {
    glp_set_col_kind(lp.get(), i + 1, GLP_IV);
    glp_set_col_bnds(lp.get(), i + 1, GLP_DB, 0, 1);
    glp_set_obj_coef(lp.get(), i + 1, runtime[i]);
    cols[i + 1] = i + 1;
    values[i + 1] = memory[i];
  }
  glp_load_matrix(lp.get(), n, rows.data(), cols.data(), values.data());

  const std::string failed = "ilp knapsack: GLPK found no optimal solution (capacity " + std::to_string(max_memory) + ")";
  const std::string limit = "ilp solver: time limit of " + seconds_text(time_limit_s) + " s reached";
  const auto dp_instead = [&] {
    KnapsackResult dp = dp_knapsack(memory, runtime, max_memory);
    dp.timed_out = true;
    dp.note = limit + " with no feasible answer; the dp solver's answer is used (ilp_time_limit)";
    return dp;
  };
  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  simplex.meth = GLP_DUAL;
  simplex.tm_lim = milliseconds(time_limit_s);
  const int relaxed = glp_simplex(lp.get(), &simplex);
  if (relaxed == GLP_ETMLIM) return dp_instead();
  if (relaxed != 0 || glp_get_status(lp.get()) != GLP_OPT) throw std::runtime_error(failed);
  glp_iocp search;
  glp_init_iocp(&search);
  search.msg_lev = GLP_MSG_OFF;
  search.tm_lim = milliseconds(time_limit_s);
  const int code = glp_intopt(lp.get(), &search);
  const int status = glp_mip_status(lp.get());
  if (code == GLP_ETMLIM) {
    if (status != GLP_FEAS && status != GLP_OPT) return dp_instead();
    result.timed_out = true;
    result.note = limit + "; its best feasible answer is kept, not proven optimal (ilp_time_limit)";
  } else if (code != 0 || status != GLP_OPT) {
    throw std::runtime_error(failed);
  }
  for (int i = 0; i < n; ++i) {
    if (glp_mip_col_val(lp.get(), i + 1) > 0.5) {
      result.saved.push_back(i);
      result.total_runtime += runtime[i];
    } else {
      result.recomputed.push_back(i);
    }
  }
  return result;
}

}  // namespace pt
