// report/json_writer.h: the exact text it writes (indentation, commas,
// escapes, numbers), and a document larger than its buffer written whole.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include "graph/human_units.h"
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

TEST_CASE("JsonWriter: a character to escape is found at every place of strings of every length to 48") {
  // The scan reads 16 and 8 bytes a step with overlapping tails: a byte it
  // missed would reach the document raw. DEL and bytes from 0x80 up (alone:
  // not UTF-8) are escaped too; spaces and printable ASCII are written as
  // they are.
  auto written = [](const std::string& s) {
    std::ostringstream out;
    {
      pt::JsonWriter w(out);
      w.value(s);
    }
    return out.str();
  };
  for (size_t length = 1; length <= 48; ++length) {
    for (size_t at = 0; at < length; ++at) {
      for (const char c : {'"', '\\', '\n', '\x01', '\x1f', '\0', '\x7f', '\x80', '\xff'}) {
        std::string s(length, 'a');
        s[at] = c;
        CAPTURE(length);
        CAPTURE(at);
        CHECK(written(s) == pt::JsonWriter::quoted(s));
        CHECK(written(s) != "\"" + s + "\"");
      }
      for (const char c : {' ', '~', '!', '#'}) {
        std::string s(length, 'a');
        s[at] = c;
        CHECK(written(s) == "\"" + s + "\"");
      }
    }
  }
}

TEST_CASE("JsonWriter: C0, DEL and C1 controls are escaped, other UTF-8 kept, other bytes as U+FFFD") {
  auto written = [](const std::string& s) {
    std::ostringstream out;
    {
      pt::JsonWriter w(out);
      w.value(s);
    }
    return out.str();
  };
  CHECK(written("a\x1b[2Jb") == "\"a\\u001b[2Jb\"");
  CHECK(written("del\x7f") == "\"del\\u007f\"");
  CHECK(written("csi\xc2\x9b" "31m") == "\"csi\\u009b31m\"");        // U+009B, a C1 control
  CHECK(written("\xc2\x80\xc2\x9f") == "\"\\u0080\\u009f\"");    // both ends of C1
  CHECK(written("nbsp\xc2\xa0 caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82") ==
        "\"nbsp\xc2\xa0 caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82\"");  // printable UTF-8 as it is
  CHECK(written("bad\xff\xc2") == "\"bad\\ufffd\\ufffd\"");         // not UTF-8; a sequence cut short
  // Long strings take the vector scan: the same answers.
  const std::string pad(40, 'x');
  CHECK(written(pad + "\xc2\x9b" + pad) == "\"" + pad + "\\u009b" + pad + "\"");
  CHECK(written(pad + "\xc3\xa9" + pad) == "\"" + pad + "\xc3\xa9" + pad + "\"");
}

TEST_CASE("JsonWriter: integral doubles are written as integers, others as the shortest round trip") {
  std::ostringstream out;
  {
    pt::JsonWriter w(out, pt::JsonLayout::Compact);
    w.begin_array();
    w.value(2000000.0);
    w.value(0x1p64);      // a FLOP total past 2^64: not an integer below 2^63, so %g
    w.value(4503599627370496.0);
    w.value(0.5);
    w.end_array();
  }
  CHECK(out.str() == "[2000000,1.8446744073709552e+19,4503599627370496,0.5]\n");
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

namespace {

// The definition shortest_number meets: printf's %g with the fewest
// significant digits (searched from one) that read back as the same double.
std::string fewest_digits_from_one(double v) {
  char buf[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace

TEST_CASE("shortest_number: the fewest %g digits that read back, on edge values and 100,000 random doubles") {
  CHECK(pt::shortest_number(1.2) == "1.2");
  CHECK(pt::shortest_number(0.1 + 0.2) == "0.30000000000000004");
  CHECK(pt::shortest_number(1e21) == "1e+21");
  CHECK(pt::shortest_number(123456.0) == "123456");
  CHECK(pt::shortest_number(1234567.0) == "1234567");
  CHECK(pt::shortest_number(-0.0) == "-0");
  CHECK(pt::shortest_number(std::numeric_limits<double>::infinity()) == "inf");
  std::vector<double> values = {0.0, -0.0, 1.0, 0.5, 1.1, 2.0 / 3.0, 1e-300, 5e-324, 2.2250738585072014e-308,
                                std::numeric_limits<double>::max(), std::numeric_limits<double>::denorm_min(),
                                9007199254740993.0, 1.7976931348623157e308, 100.0, 1e15, 1e16, 1e17};
  // Powers of two and their neighbours: where a double's rounding interval
  // is lopsided (half as wide below), the one place the closest decimal of
  // some length can fail to read back while another of that length does.
  for (int e = -1074; e <= 1023; ++e) {
    const double p = std::ldexp(1.0, e);
    values.push_back(p);
    values.push_back(std::nextafter(p, 0.0));
    values.push_back(std::nextafter(p, 2 * p));
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 50000; ++i) {
    uint64_t bits = rng();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    values.push_back(v);
    // Short decimals too (the report's ratios and seconds): 3.25, 0.0117.
    values.push_back(static_cast<double>(rng() % 100000) / std::pow(10.0, static_cast<double>(rng() % 12)));
  }
  size_t differ = 0;
  for (double v : values) differ += pt::shortest_number(v) != fewest_digits_from_one(v);
  CHECK(differ == 0);
}
