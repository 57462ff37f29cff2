#include "graph/dtype.h"

#include <iterator>


namespace pt {

namespace {

struct DtypeEntry {
  std::string_view name;
  uint32_t itemsize;
};

// Every dtype torch 2.11 defines, under its canonical name and its aliases.
constexpr DtypeEntry kDtypes[] = {
    {"float64", 8}, {"double", 8},
    {"float32", 4}, {"float", 4},
    {"float16", 2}, {"half", 2},
    {"bfloat16", 2},
    {"complex32", 4}, {"chalf", 4},
    {"complex64", 8}, {"cfloat", 8},
    {"complex128", 16}, {"cdouble", 16},
    {"uint8", 1}, {"int8", 1},
    {"int16", 2}, {"short", 2},
    {"int32", 4}, {"int", 4},
    {"int64", 8}, {"long", 8},
    {"uint16", 2}, {"uint32", 4}, {"uint64", 8},
    {"bool", 1},
    {"qint8", 1}, {"quint8", 1}, {"qint32", 4}, {"quint4x2", 1}, {"quint2x4", 1},
    {"float8_e4m3fn", 1}, {"float8_e5m2", 1}, {"float8_e4m3fnuz", 1},
    {"float8_e5m2fnuz", 1}, {"float8_e8m0fnu", 1}, {"float4_e2m1fn_x2", 1},
    {"bits1x8", 1}, {"bits2x4", 1}, {"bits4x2", 1}, {"bits8", 1}, {"bits16", 2},
    {"int1", 1}, {"int2", 1}, {"int3", 1}, {"int4", 1}, {"int5", 1}, {"int6", 1}, {"int7", 1},
    {"uint1", 1}, {"uint2", 1}, {"uint3", 1}, {"uint4", 1}, {"uint5", 1}, {"uint6", 1},
    {"uint7", 1},
};

}  // namespace

// 1 + 2 x the entry's place, + 1 for the "torch." spelling: at most 2 x 57.
static_assert(2 * std::size(kDtypes) < 255);

std::optional<DtypeInfo> dtype_info(std::string_view name) {
  const bool prefixed = name.starts_with("torch.");
  if (prefixed) name.remove_prefix(6);
  for (size_t k = 0; k < std::size(kDtypes); ++k) {
    if (kDtypes[k].name == name) return DtypeInfo{kDtypes[k].itemsize, static_cast<uint8_t>(1 + 2 * k + prefixed)};
  }
  return std::nullopt;
}

std::optional<uint32_t> dtype_itemsize(std::string_view name) {
  const auto info = dtype_info(name);
  return info ? std::optional<uint32_t>(info->itemsize) : std::nullopt;
}

uint8_t dtype_code(std::string_view name) {
  const auto info = dtype_info(name);
  return info ? info->code : 0;
}

}  // namespace pt
