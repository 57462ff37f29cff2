// LEMON's GLPK MIP solver with a time limit. lemon::GlpkMip's solve runs
// GLPK's branch and bound to the end, which may take hours on a few hundred
// items of near-equal ratio (a knapsack on gpt2_124m at budget 0.5). This
// solver is a lemon::GlpkMip (models are built through LEMON's MIP
// interface as usual) whose solve takes the same steps as LEMON's, the LP
// relaxation by dual simplex then branch and bound, each stopped after
// `seconds`. When the limit stops the search, solve() returns UNSOLVED and
// type() says whether a feasible answer was found (FEASIBLE: sol() reads
// it; UNDEFINED: none); timed_out() tells that case from a real failure.
#pragma once

#include <lemon/glpk.h>

namespace pt {

class TimedGlpkMip : public lemon::GlpkMip {
 public:
  explicit TimedGlpkMip(double seconds) : seconds_(seconds) {}
  bool timed_out() const { return timed_out_; }

 protected:
  SolveExitStatus _solve() override;

 private:
  double seconds_;
  bool timed_out_ = false;
};

}  // namespace pt
