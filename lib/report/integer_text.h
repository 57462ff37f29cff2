// Exact decimal text and a JSON-friendly double for the flow network's
// integers, whatever their width (capacities may be 128 bits wide).
#pragma once

#include <algorithm>
#include <string>
#include <type_traits>

namespace pt {

template <typename T>
std::string integer_text(T v) {
  if constexpr (sizeof(T) <= sizeof(long long)) {
    return std::to_string(v);
  } else {
    const bool negative = v < 0;
    std::string digits;
    do {
      const int d = static_cast<int>(v % 10);
      digits.push_back(static_cast<char>('0' + (negative ? -d : d)));
      v /= 10;
    } while (v != 0);
    if (negative) digits.push_back('-');
    std::reverse(digits.begin(), digits.end());
    return digits;
  }
}

template <typename T>
double integer_number(T v) {
  return static_cast<double>(v);
}

}  // namespace pt
