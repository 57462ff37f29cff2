// report/json_writer.h: the exact text it writes (indentation, commas,
// escapes, numbers), and a document larger than its buffer written whole.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "report/json_writer.h"

TEST_CASE("JsonWriter: nesting, empty containers, escapes and numbers, byte for byte") {
  std::ostringstream out;
  {
    pt::JsonWriter w(out);
    w.begin_object();
    w.field("name", "a \"quoted\" \\ name\nwith\ttabs and \x01");
    w.field("min", std::numeric_limits<int64_t>::min());
    w.field("max", std::numeric_limits<uint64_t>::max());
    w.field("ratio", 1.2);
    w.field("infinite", std::numeric_limits<double>::infinity());
    w.field("yes", true);
    w.key("nothing");
    w.null_value();
    w.key("empty_object");
    w.begin_object();
    w.end_object();
    w.key("empty_array");
    w.begin_array();
    w.end_array();
    w.key("rows");
    w.begin_array();
    w.value(int64_t{-3});
    w.begin_object();
    w.field("k", "");
    w.end_object();
    w.end_array();
    w.end_object();
  }
  CHECK(out.str() ==
        "{\n"
        "  \"name\": \"a \\\"quoted\\\" \\\\ name\\nwith\\ttabs and \\u0001\",\n"
        "  \"min\": -9223372036854775808,\n"
        "  \"max\": 18446744073709551615,\n"
        "  \"ratio\": 1.2,\n"
        "  \"infinite\": null,\n"
        "  \"yes\": true,\n"
        "  \"nothing\": null,\n"
        "  \"empty_object\": {},\n"
        "  \"empty_array\": [],\n"
        "  \"rows\": [\n"
        "    -3,\n"
        "    {\n"
        "      \"k\": \"\"\n"
        "    }\n"
        "  ]\n"
        "}\n");
}

TEST_CASE("JsonWriter: a document many times its buffer arrives whole and in order") {
  std::ostringstream out;
  std::string expected = "[";
  {
    pt::JsonWriter w(out);
    w.begin_array();
    for (int i = 0; i < 30000; ++i) {
      const std::string item = "item_" + std::to_string(i) + std::string(static_cast<size_t>(i % 37), 'x');
      w.value(item);
      expected += (i == 0 ? "\n  \"" : ",\n  \"") + item + "\"";
    }
    // A string longer than the whole buffer, deep inside.
    const std::string long_text(200'000, 'y');
    w.begin_object();
    w.field("long", long_text);
    w.end_object();
    expected += ",\n  {\n    \"long\": \"" + long_text + "\"\n  }";
    w.end_array();
  }
  expected += "\n]\n";
  CHECK(out.str().size() == expected.size());
  CHECK(out.str() == expected);
}
