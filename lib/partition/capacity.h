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

// A Capacity as a value of two 64-bit halves, for arrays of them: aligned
// to 8 bytes, where __int128 takes 16, so that a FlowArc (two vertex ids
// and a capacity) is 24 bytes instead of 32. At 10^6 nodes the network's
// 1.78M arcs and the contraction's 0.93M are read in seven passes by the
// solve. Converts to and from Capacity implicitly; a reference to it is
// never a reference to an __int128 (binding one to a packed __int128 is
// what the sanitizer build rejected in an earlier attempt).
class StoredCapacity {
 public:
  constexpr StoredCapacity() = default;
  constexpr StoredCapacity(Capacity c)  // NOLINT(google-explicit-constructor): stores any Capacity
      : lo_(static_cast<uint64_t>(c)), hi_(static_cast<uint64_t>(static_cast<unsigned __int128>(c) >> 64)) {}
  constexpr operator Capacity() const {  // NOLINT(google-explicit-constructor)
    return static_cast<Capacity>((static_cast<unsigned __int128>(hi_) << 64) | lo_);
  }

 private:
  uint64_t lo_ = 0;
  uint64_t hi_ = 0;
};

std::string to_string(Capacity c);
// The value as JSON would carry it: exact below 2^53, else rounded.
double to_double(Capacity c);
bool fits_int64(Capacity c);

}  // namespace pt
