// What the run is doing now, in words ("reading g.pb", "writing the
// outputs"), for the one line that running out of memory gives:
//   partition_tool: error: out of memory while reading g.pb
// Commands set it as they go; nothing restores it on the way out, so the
// error handler in main.cpp reads the stage the run failed in.
#pragma once

#include <string>

namespace pt::app {

void set_stage(std::string what);
const std::string& stage();

}  // namespace pt::app
