#include "partition/capacity.h"

#include <cstdlib>

namespace pt {

std::string to_string(Capacity c) {
  if (c == kInfinite) return "inf";
  return FlowValue(c).get_str();  // exact: c is an integer
}

std::string to_string(const FlowValue& v) { return v.get_str(); }

// Through the decimal text: strtod rounds to the nearest double, where
// GMP's get_d truncates.
double to_double(const FlowValue& v) { return std::strtod(v.get_str().c_str(), nullptr); }

}  // namespace pt
