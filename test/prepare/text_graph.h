// Small hand-written graphs for the prepare tests: protobuf text format with
// two shorthands, expanded before parsing:
//   $T  -> val { tensor { shape: [4] stride: [1] dtype: "float32" device: "cpu" } }
//   $t  -> tensor { ... } alone (a tuple item)
//   $P(name) -> a float32 primal placeholder named `name` (target = name)
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>

#include "graph/validate.h"
#include "support/none_gradients.h"

namespace pt::test {

inline std::string expand_shorthands(std::string text) {
  const std::string bare = R"(tensor { shape: [4] stride: [1] dtype: "float32" device: "cpu" })";
  const std::string tensor = "val { " + bare + " }";
  for (size_t at = text.find("$T"); at != std::string::npos; at = text.find("$T", at)) {
    text.replace(at, 2, tensor);
  }
  for (size_t at = text.find("$t"); at != std::string::npos; at = text.find("$t", at)) {
    text.replace(at, 2, bare);
  }
  for (size_t at = text.find("$P("); at != std::string::npos; at = text.find("$P(", at)) {
    const size_t close = text.find(')', at);
    const std::string name = text.substr(at + 3, close - at - 3);
    text.replace(at, close + 1 - at,
                 "nodes { name: \"" + name + "\" op: \"placeholder\" target: \"" + name + "\" " + tensor + " }");
  }
  return text;
}

inline std::shared_ptr<proto::Graph> message_from_text(const std::string& text) {
  auto msg = std::make_shared<proto::Graph>();
  if (!google::protobuf::TextFormat::ParseFromString(expand_shorthands(text), msg.get())) {
    throw std::runtime_error("bad test graph text");
  }
  return msg;
}

// The graph of `text`, its outputs padded with a none gradient per primal
// not given one (most of these graphs are forward fragments).
inline Graph graph_from_text(const std::string& text) {
  const auto msg = message_from_text(text);
  pad_none_gradients(*msg);
  return validate(msg, "test.pbtxt");
}

inline std::vector<std::string> node_names(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes) out.emplace_back(n.name);
  return out;
}

}  // namespace pt::test
