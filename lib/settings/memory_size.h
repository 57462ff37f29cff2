// A memory size as users write it: bytes, with an optional decimal (kB, MB,
// GB, TB: powers of 1000) or binary (KiB, MiB, GiB, TiB: powers of 1024)
// unit, case-insensitive, a space allowed before the unit: "3.5GB" is
// 3.5e9 bytes, "3GiB" 3 * 2^30, "2e9" 2e9. The memory_limit setting reads
// its value with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pt {

// Rounded to the nearest byte. "0", "none" and "off" are 0 (no limit).
// Throws SettingsError naming `key` and the text for anything else: a
// negative or non-finite number, an unknown unit, a size past 2^63 bytes.
uint64_t parse_memory_size(std::string_view text, std::string_view key);

}  // namespace pt
