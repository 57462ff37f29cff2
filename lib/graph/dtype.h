// Torch dtypes: names and item sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pt {

// Bytes per element of the dtype named `name` ("bfloat16", "torch.float8_e4m3fn",
// "long", ...), or nullopt when torch has no such dtype. Sub-byte dtypes
// (int1..int7, uint1..uint7, float4_e2m1fn_x2 packs two) count one byte per
// element, as torch's element_size() does.
std::optional<uint32_t> dtype_itemsize(std::string_view name);

}  // namespace pt
