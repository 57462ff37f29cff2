#include "partition/timed_glpk_mip.h"

#include <glpk.h>

#include <algorithm>
#include <climits>
#include <cmath>

namespace pt {

namespace {

int milliseconds(double seconds) {
  const double ms = std::ceil(seconds * 1000);
  return ms >= static_cast<double>(INT_MAX) ? INT_MAX : std::max(1, static_cast<int>(ms));
}

}  // namespace

TimedGlpkMip::SolveExitStatus TimedGlpkMip::_solve() {
  glp_prob* p = lpx();
  timed_out_ = false;
  stopped_at_gap_ = false;
  glp_smcp simplex;
  glp_init_smcp(&simplex);
  simplex.msg_lev = GLP_MSG_OFF;
  simplex.meth = GLP_DUALP;
  simplex.tm_lim = milliseconds(seconds_);
  const int relaxed = glp_simplex(p, &simplex);
  if (relaxed == GLP_ETMLIM) timed_out_ = true;
  if (relaxed != 0) return UNSOLVED;
  if (glp_get_status(p) != GLP_OPT) return SOLVED;  // infeasible or unbounded, proven
  glp_iocp search;
  glp_init_iocp(&search);
  search.msg_lev = GLP_MSG_OFF;
  search.tm_lim = milliseconds(seconds_);
  search.presolve = search_.presolve ? GLP_ON : GLP_OFF;
  search.mip_gap = search_.relative_gap;
  const int code = glp_intopt(p, &search);
  if (code == GLP_ETMLIM) timed_out_ = true;
  if (code == GLP_EMIPGAP) stopped_at_gap_ = true;
  // The presolver's proof that no integer answer exists.
  if (code == GLP_ENOPFS) return SOLVED;
  return code == 0 ? SOLVED : UNSOLVED;
}

}  // namespace pt
