// Capacities of the flow network: exact integers, 128 bits wide. PyTorch's
// weights are Python integers (trunc(size * base ** dist)), exact at any
// size; with dist_from_bw_base well above 1.1 and the default cap of 100
// they pass 2^63 (1.5^100 is 4e17), so 64 bits would not reproduce its ties.
#pragma once

#include <cstdint>
#include <string>

namespace pt {

using Capacity = __int128;
inline constexpr Capacity kInfinite = -1;             // marks an infinite arc until the solver picks a sentinel
inline constexpr Capacity kMaxWeight = Capacity{1} << 100;  // finite weights stay below; sums of 2^26 of them fit

std::string to_string(Capacity c);
// The value as JSON would carry it: exact below 2^53, else rounded.
double to_double(Capacity c);
bool fits_int64(Capacity c);

}  // namespace pt
