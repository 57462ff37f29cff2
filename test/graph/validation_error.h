// Graphs in protobuf text format for the validation tests, and the one-line
// error validate() gives them.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include <google/protobuf/text_format.h>

#include "graph/errors.h"
#include "graph/validate.h"

namespace pt::test {

inline std::shared_ptr<const proto::Graph> parse_pbtxt(const std::string& pbtxt) {
  auto g = std::make_shared<proto::Graph>();
  REQUIRE(google::protobuf::TextFormat::ParseFromString(pbtxt, g.get()));
  return g;
}

// The InputError message validate() throws for `pbtxt` (source "g.pbtxt"),
// or "" when it accepts the graph.
inline std::string validation_error(const std::string& pbtxt, const ValidateOptions& options = {}) {
  try {
    validate(parse_pbtxt(pbtxt), "g.pbtxt", options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace pt::test
