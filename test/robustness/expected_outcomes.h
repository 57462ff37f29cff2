// test/robustness/expected.txt: one crafted graph file per line, the exit
// code partition_tool must give for it (0 ok, 2 bad input, 3 infeasible),
// then a substring its one-line error must contain (for exit 0, what the
// file shows). Fuzzing findings are added here as regression files.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace pt::test {

struct ExpectedOutcome {
  std::string file;  // under test/robustness
  int exit_code = 0;
  std::string substring;
};

inline std::string robustness_dir() { return std::string(PT_TEST_DIR) + "/robustness"; }

inline std::vector<ExpectedOutcome> read_expected_outcomes() {
  std::ifstream in(robustness_dir() + "/expected.txt");
  if (!in) throw std::runtime_error("cannot open test/robustness/expected.txt");
  std::vector<ExpectedOutcome> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto gap1 = line.find("  ");
    const auto code_at = line.find_first_not_of(' ', gap1);
    const auto gap2 = line.find("  ", code_at);
    if (gap1 == std::string::npos || gap2 == std::string::npos) {
      throw std::runtime_error("expected.txt: expected 'file  exit  substring' in: " + line);
    }
    out.push_back({line.substr(0, gap1), std::stoi(line.substr(code_at, gap2 - code_at)),
                   line.substr(line.find_first_not_of(' ', gap2))});
  }
  return out;
}

}  // namespace pt::test
