// LEMON's GLPK MIP solver with a time limit. lemon::GlpkMip's solve runs
// GLPK's branch and bound to the end, which may take hours on a few hundred
// items of near-equal ratio (a knapsack on gpt2_124m at budget 0.5). This
// solver is a lemon::GlpkMip (models are built through LEMON's MIP
// interface as usual) whose solve takes the same steps as LEMON's, the LP
// relaxation by dual simplex then branch and bound, each stopped after
// `seconds`. When the limit stops the search, solve() returns UNSOLVED and
// type() says whether a feasible answer was found (FEASIBLE: sol() reads
// it; UNDEFINED: none); timed_out() tells that case from a real failure.
// GlpkSearch turns on GLPK's MIP presolver (when it finds no answer can
// exist, solve() returns SOLVED and type() is not FEASIBLE or OPTIMAL) and
// a relative gap at which the branch and bound stops with its best answer
// (UNSOLVED, type() FEASIBLE, stopped_at_gap()).
#pragma once

#include <lemon/glpk.h>

namespace pt {

struct GlpkSearch {
  bool presolve = false;
  double relative_gap = 0;  // 0: search until the optimum is proven
};

class TimedGlpkMip : public lemon::GlpkMip {
 public:
  explicit TimedGlpkMip(double seconds, GlpkSearch search = {}) : seconds_(seconds), search_(search) {}
  bool timed_out() const { return timed_out_; }
  bool stopped_at_gap() const { return stopped_at_gap_; }

 protected:
  SolveExitStatus _solve() override;

 private:
  double seconds_;
  GlpkSearch search_;
  bool timed_out_ = false;
  bool stopped_at_gap_ = false;
};

}  // namespace pt
