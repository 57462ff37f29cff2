// libFuzzer target: the input is a graph in the protobuf JSON mapping (.json).
#include "fuzz_pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pt::fuzz::run_pipeline(data, size, pt::Format::Json);
  return 0;
}
