// libFuzzer target: the input is a graph in the binary protobuf (.pb).
#include "fuzz_pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pt::fuzz::run_pipeline(data, size, pt::Format::Binary);
  return 0;
}
