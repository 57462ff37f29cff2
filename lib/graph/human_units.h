// Human-readable quantities for reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pt {

// 3293347840 -> "3.29 GB" (decimal units, three significant digits); below
// 1000 bytes, "512 B". A double, as traffic totals are (every byte count
// below 2^53 is exact in one).
std::string human_bytes(double bytes);
// Signed byte deltas: "+6.59 GB", "-512 B", "0 B".
std::string human_bytes_delta(double bytes);
// Seconds as "1.23 ms", "45.6 us", "2.10 s".
std::string human_seconds(double seconds);
// The shortest text that reads back as the same double: 1.1, not 1.1000000000000001.
std::string shortest_number(double v);
// A count held in a double: integers below 2^63 in full ("2000000", where
// shortest_number writes "2e+06"), others as shortest_number.
std::string count_number(double v);
// Signed seconds: "+1.37 ms", "-45.6 us", "0 s".
std::string human_seconds_delta(double seconds);
// FLOPs as "2.53 TFLOP", "512 FLOP".
std::string human_flops(double flops);
// A shape as "[32768,50257]"; "[]" for a scalar.
std::string shape_text(const std::vector<int64_t>& shape);
// `text` cut at word boundaries into lines of at most `width` columns, the
// first starting with `first_indent`, the others with `indent`; each line
// ends with '\n'. A word longer than a line stands on its own line.
std::string wrap_text(const std::string& text, size_t width, const std::string& first_indent,
                      const std::string& indent);
// `s` cut to `width` columns: the end replaced by '~' when too long.
std::string fit_right(const std::string& s, size_t width);
// `s` cut to `width` columns keeping its end ("~h[0].attn"), for module paths.
std::string fit_left(const std::string& s, size_t width);

}  // namespace pt
