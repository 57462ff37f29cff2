#include <doctest/doctest.h>

#include "graph/errors.h"
#include "settings/settings.h"
#include "settings/memory_size.h"

namespace pt {

TEST_CASE("memory sizes read decimal and binary units") {
  CHECK(parse_memory_size("3.5GB", "k") == 3'500'000'000ull);
  CHECK(parse_memory_size("3GiB", "k") == 3ull << 30);
  CHECK(parse_memory_size("3 gib", "k") == 3ull << 30);
  CHECK(parse_memory_size("2e9", "k") == 2'000'000'000ull);
  CHECK(parse_memory_size("3500000000.0", "k") == 3'500'000'000ull);  // the Python bridge's float text
  CHECK(parse_memory_size("512MiB", "k") == 512ull << 20);
  CHECK(parse_memory_size("1.5kB", "k") == 1500);
  CHECK(parse_memory_size("100B", "k") == 100);
  CHECK(parse_memory_size("0", "k") == 0);
  CHECK(parse_memory_size("none", "k") == 0);
  CHECK(parse_memory_size("off", "k") == 0);
}

TEST_CASE("memory sizes refuse what is not a size") {
  for (const char* bad : {"", "GB", "-1GB", "3XB", "inf", "nan", "1e30", "3.5 G B"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_memory_size(bad, "memory_limit"), SettingsError);
  }
  try {
    parse_memory_size("3XB", "memory_limit");
  } catch (const SettingsError& e) {
    CHECK(std::string(e.what()).find("memory_limit = '3XB'") != std::string::npos);
  }
}

TEST_CASE("memory limits read a size or a percentage of the default plan's peak") {
  CHECK(parse_memory_limit("3GiB", "k") == MemoryLimit{3ull << 30, 0});
  CHECK(parse_memory_limit("60%", "k") == MemoryLimit{0, 0.6});
  CHECK(parse_memory_limit("62.5 %", "k") == MemoryLimit{0, 0.625});
  CHECK(parse_memory_limit("150%", "k").fraction == doctest::Approx(1.5));
  CHECK_FALSE(parse_memory_limit("none", "k").on());
  CHECK(parse_memory_limit("60%", "k").resolve(2'000'000'000) == 1'200'000'000);
  CHECK(parse_memory_limit("2GB", "k").resolve(5) == 2'000'000'000);
  CHECK(parse_memory_limit("62.5%", "k").text() == "62.5%");
  for (const char* bad : {"%", "0%", "-5%", "x%", "5%%", "nan%", "5 GB%"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_memory_limit(bad, "memory_limit"), SettingsError);
  }
}

TEST_CASE("memory_limit is a scalar setting in bytes or percent, off by default") {
  Settings s;
  CHECK(!s.memory_limit.on());
  CHECK(s.changed_keys().empty());
  s.set("memory_limit", "3GiB");
  CHECK(s.memory_limit == MemoryLimit{3ull << 30, 0});
  CHECK(s.to_map().at("memory_limit") == "3221225472");
  CHECK(s.changed_keys() == std::vector<std::string>{"memory_limit"});
  s.set_assignment("memory_limit=none");
  CHECK(!s.memory_limit.on());
  CHECK_THROWS_AS(s.set("memory_limit", "lots"), SettingsError);
  s.set("memory_limit", "60%");
  CHECK(s.memory_limit == MemoryLimit{0, 0.6});
  CHECK(s.to_map().at("memory_limit") == "60%");
  const auto keys = Settings::scalar_keys();
  CHECK(std::find(keys.begin(), keys.end(), "memory_limit") != keys.end());
}

}  // namespace pt
