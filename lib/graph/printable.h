// Untrusted text (node names, targets, field values read from a graph file)
// as it may appear inside a one-line error message: control characters (C0, DEL, C1),
// backslashes, quotes and bytes that are not UTF-8 are escaped, and text
// longer than `max_bytes` is cut with a note of its full length, so a
// message stays one short line whatever the file holds.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pt {

inline constexpr size_t kPrintableMaxBytes = 120;

// "relu" -> "relu"; "a\nb" -> "a\\nb"; U+0085 -> "\\u0085"; 100 MB of 'x' -> "xxx...x... (104857600 bytes)".
std::string printable(std::string_view text, size_t max_bytes = kPrintableMaxBytes);

// True when `text` holds a control character: C0 (below 0x20), DEL (0x7f)
// or C1 (U+0080 to U+009F, in UTF-8 0xc2 0x80 to 0xc2 0x9f).
bool has_control_character(std::string_view text);

}  // namespace pt
