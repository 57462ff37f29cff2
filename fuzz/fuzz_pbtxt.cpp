// libFuzzer target: the input is a graph in the protobuf text format (.pbtxt).
#include "fuzz_pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pt::fuzz::run_pipeline(data, size, pt::Format::Text);
  return 0;
}
