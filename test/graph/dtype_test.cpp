#include <doctest/doctest.h>

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
