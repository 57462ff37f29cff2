#include "graph/dtype.h"


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

std::optional<uint32_t> dtype_itemsize(std::string_view name) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  for (const auto& e : kDtypes) {
    if (e.name == name) return e.itemsize;
  }
  return std::nullopt;
}

}  // namespace pt
