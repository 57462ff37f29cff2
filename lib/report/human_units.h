// Human-readable quantities for reports.
#pragma once

#include <cstdint>
#include <string>

namespace pt {

// 3293347840 -> "3.29 GB" (decimal units, three significant digits); below
// 1000 bytes, "512 B".
std::string human_bytes(uint64_t bytes);
// Signed byte deltas: "+6.59 GB", "-512 B", "0 B".
std::string human_bytes_delta(int64_t bytes);
// Seconds as "1.23 ms", "45.6 us", "2.10 s".
std::string human_seconds(double seconds);

}  // namespace pt
