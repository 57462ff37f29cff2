#include "partition/capacity.h"

#include <algorithm>

namespace pt {

std::string to_string(Capacity c) {
  if (c == 0) return "0";
  const bool negative = c < 0;
  unsigned __int128 v = negative ? static_cast<unsigned __int128>(-(c + 1)) + 1 : static_cast<unsigned __int128>(c);
  std::string out;
  while (v > 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  if (negative) out.push_back('-');
  std::reverse(out.begin(), out.end());
  return out;
}

double to_double(Capacity c) { return static_cast<double>(c); }

bool fits_int64(Capacity c) { return c >= INT64_MIN && c <= INT64_MAX; }

}  // namespace pt
