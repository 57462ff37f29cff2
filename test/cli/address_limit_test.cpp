// The tool starts under an ordinary address-space limit: `ulimit -v 60000;
// partition_tool --version` prints the version. A sanitizer build reserves
// terabytes of shadow memory at start-up, so there the case cannot run and
// the program exits 77 (CTest: skipped).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "graph/temp_dir.h"

#include "support/under_sanitizer.h"

TEST_CASE("--version runs under a 60 MB address-space limit (ulimit -v 60000)") {
#ifdef PT_UNDER_SANITIZER
  MESSAGE("skipped: a sanitizer build cannot start under an address-space limit");
  std::exit(77);
#endif
  pt::test::TempDir dir;
  const std::string out = dir.file("out");
  const std::string command = "ulimit -v 60000 && '" + std::string(PT_TOOL_PATH) + "' --version > '" + out + "' 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  INFO(text.str());
  CHECK(status == 0);
  CHECK(text.str().find("partition_tool ") == 0);
}
