// Text on its way to a terminal or a document, whatever its origin (a graph,
// a path or a setting value from the command line, an error message quoting
// them): control characters would move the cursor, recolour or retitle the
// terminal. C0 controls, DEL and C1 controls (U+0080-U+009F, which some
// terminals obey as ESC [ and friends) and bytes that are not UTF-8 become
// visible escapes ("\x1b", "\u009b", "\xff"); all else, backslashes
// included, stays as it is, so text escaped before (printable.h) reads the
// same.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pt {

enum class Newlines { Escape, Keep };

// `text` with its control characters and non-UTF-8 bytes escaped; newlines
// kept for documents (Newlines::Keep), escaped for one-line messages.
std::string visible_text(std::string_view text, Newlines newlines = Newlines::Escape);
// The same in place: a text with nothing to escape (every report) is not
// copied.
void make_visible(std::string& text, Newlines newlines);

// Length of the valid UTF-8 sequence of two to four bytes at text[i], or 0
// when text[i] starts none.
size_t utf8_sequence_length(std::string_view text, size_t i);

}  // namespace pt
