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

// A dtype name and what validation keeps of it (Node::dtype): its item size
// and a code that tells names apart exactly, as comparing the strings
// would ("float" and "float32" differ, so do "torch.float32" and
// "float32"); codes are 1-255, 0 stands for no tensor.
struct DtypeInfo {
  uint32_t itemsize;
  uint8_t code;
};
std::optional<DtypeInfo> dtype_info(std::string_view name);
// dtype_info(name)->code, 0 for a name torch has no dtype for.
uint8_t dtype_code(std::string_view name);

}  // namespace pt
