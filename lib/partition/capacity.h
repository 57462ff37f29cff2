// Capacities and flow values of the min cut, exact at any size.
//
// An arc's capacity is PyTorch's weight, trunc(size * base ** dist)
// computed in IEEE double, doubled for a value that is not materialized:
// an integer that a double holds exactly (doubling changes only the
// exponent), whatever dist_from_bw_base is. PyTorch then adds them as
// Python integers, exact at any width; flows and cut values here are GMP
// integers (FlowValue) for the same reason. The solver itself uses 64-bit
// integers wherever a component's capacities allow (min_cut.h).
#pragma once

#include <gmpxx.h>

#include <limits>
#include <string>

namespace pt {

using Capacity = double;  // a non-negative integer held exactly, or kInfinite
inline constexpr Capacity kInfinite = std::numeric_limits<double>::infinity();

using FlowValue = mpz_class;  // a sum of finite capacities: a flow or a cut value

// Exact decimal text ("inf" for kInfinite).
std::string to_string(Capacity c);
std::string to_string(const FlowValue& v);
// The value as JSON would carry it: exact below 2^53, else the nearest double
// (infinity past the largest).
double to_double(const FlowValue& v);

}  // namespace pt
