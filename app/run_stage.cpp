#include "run_stage.h"

namespace pt::app {

namespace {

std::string& current() {
  static std::string what = "starting";
  return what;
}

}  // namespace

void set_stage(std::string what) { current() = std::move(what); }

const std::string& stage() { return current(); }

}  // namespace pt::app
