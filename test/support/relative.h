// Comparison of floating-point results within a relative tolerance.
// doctest::Approx allows epsilon x (1 + max(|a|, |b|)): for the seconds the
// bandwidth model returns (microseconds) that is an absolute 1.2e-5, wider
// than the values compared, so such a check could not fail. With its scale
// at 0 the tolerance is relative alone (and an expected 0 must be exact).
#pragma once

#include <doctest/doctest.h>

#include "support/relative.h"

namespace pt::test {

inline doctest::Approx relative(double expected) { return doctest::Approx(expected).scale(0); }

}  // namespace pt::test
