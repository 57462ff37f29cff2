#include <doctest/doctest.h>

#include <string_view>

#include "graph/dtype.h"

TEST_CASE("dtype item sizes cover torch's dtypes, aliases and float8") {
  CHECK(pt::dtype_itemsize("float32") == 4u);
  CHECK(pt::dtype_itemsize("torch.bfloat16") == 2u);
  CHECK(pt::dtype_itemsize("float8_e4m3fn") == 1u);
  CHECK(pt::dtype_itemsize("float8_e5m2fnuz") == 1u);
  CHECK(pt::dtype_itemsize("complex128") == 16u);
  CHECK(pt::dtype_itemsize("long") == 8u);
  CHECK_FALSE(pt::dtype_itemsize("float12").has_value());
  CHECK_FALSE(pt::dtype_itemsize("").has_value());
}

TEST_CASE("dtype codes tell names apart exactly, as comparing the strings does") {
  const char* names[] = {"float32", "float", "torch.float32", "torch.float", "bfloat16", "torch.bfloat16",
                         "long",    "int64", "uint7",         "torch.uint7", "float64",  "bool"};
  for (const char* a : names) {
    CAPTURE(a);
    REQUIRE(pt::dtype_info(a).has_value());
    CHECK(pt::dtype_code(a) != 0);
    CHECK(pt::dtype_info(a)->itemsize == *pt::dtype_itemsize(a));
    for (const char* b : names) CHECK((pt::dtype_code(a) == pt::dtype_code(b)) == (std::string_view(a) == b));
  }
  CHECK(pt::dtype_code("float12") == 0);
  CHECK(pt::dtype_code("torch.") == 0);
  CHECK_FALSE(pt::dtype_info("").has_value());
}
