// test/malformed/expected.txt: one malformed graph file per line, then a
// substring the one-line error about it must contain.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace pt::test {

struct ExpectedError {
  std::string file;       // under test/malformed
  std::string substring;  // the error message must contain it
};

inline std::string malformed_dir() { return std::string(PT_TEST_DIR) + "/malformed"; }

inline std::vector<ExpectedError> read_expected_errors() {
  std::ifstream in(malformed_dir() + "/expected.txt");
  if (!in) throw std::runtime_error("cannot open test/malformed/expected.txt");
  std::vector<ExpectedError> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto gap = line.find("  ");
    if (gap == std::string::npos) throw std::runtime_error("expected.txt: no two-space gap in: " + line);
    out.push_back({line.substr(0, gap), line.substr(line.find_first_not_of(' ', gap))});
  }
  return out;
}

}  // namespace pt::test
