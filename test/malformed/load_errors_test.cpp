// Every file in test/malformed/ is rejected by the library (read + validate)
// with an InputError whose one line names the file and contains the
// substring listed in expected.txt.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>

#include "graph/errors.h"
#include "graph/graph_io.h"
#include "graph/validate.h"
#include "malformed/expected_errors.h"

TEST_CASE("expected.txt lists every malformed file, at least 25") {
  const auto expected = pt::test::read_expected_errors();
  CHECK(expected.size() >= 25);
  std::set<std::string> listed;
  for (const auto& e : expected) listed.insert(e.file);
  CHECK(listed.size() == expected.size());
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::directory_iterator(pt::test::malformed_dir())) {
    const std::string name = entry.path().filename().string();
    if (name != "expected.txt" && name != "expected_errors.h" && !name.ends_with("_test.cpp")) present.insert(name);
  }
  CHECK(present == listed);
}

TEST_CASE("each malformed file is rejected with its expected one-line message") {
  for (const auto& e : pt::test::read_expected_errors()) {
    CAPTURE(e.file);
    const std::string path = pt::test::malformed_dir() + "/" + e.file;
    std::string message;
    try {
      pt::validate(pt::read_graph(path, pt::format_from_path(path)), path);
    } catch (const pt::InputError& err) {
      message = err.what();
    }
    CAPTURE(message);
    CHECK(message.starts_with(path + ": "));
    CHECK(message.find(e.substring) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
}
