// The body shared by the libFuzzer targets (one per input format): parse the
// bytes as a graph, validate, prepare, partition, then render every output
// (the partition in all three formats, the text and JSON reports) and check
// that the partitioned forward and backward graphs validate again.
//
// The library's typed errors (InputError, SettingsError, InfeasibleError)
// are the expected answer to a bad input and end the run quietly; anything
// else (another exception, a crash, a sanitizer report, a hang) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/graph_io.h"

namespace pt::fuzz {

void run_pipeline(const uint8_t* data, size_t size, Format format);

}  // namespace pt::fuzz
