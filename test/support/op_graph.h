// Tiny hand-built graphs for the runtime-estimate tests: placeholders of given
// shapes, one op node named "op" with hand-written args, and the output node
// (returning "op", then a none gradient per input).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/text_format.h>

#include "graph/validate.h"
#include "support/none_gradients.h"

namespace pt::test {

// `val { tensor { ... } }` text for a float32 tensor of `shape`.
inline std::string tensor_val(const std::vector<int64_t>& shape, const std::string& dtype = "float32") {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  return "val { tensor { shape: [" + dims + "] dtype: \"" + dtype + "\" device: \"cpu\" } }";
}

// `val { tuple { items { tensor {...} } ... } }`; an empty shape list means a none item.
inline std::string tuple_val(const std::vector<std::vector<int64_t>>& items) {
  std::string text = "val { tuple {";
  for (const auto& shape : items) {
    if (shape.empty()) {
      text += " items { none: true }";
    } else {
      std::string t = tensor_val(shape);
      text += " items {" + t.substr(5, t.size() - 6) + "}";  // strip "val {" ... "}"
    }
  }
  return text + " } }";
}

struct Input {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype = "float32";
};

// Placeholders `inputs`, extra placeholder text `extra` (e.g. a sym node),
// then node "op" = target(args) with value `val`, then the output node.
inline Graph one_op_graph(const std::vector<Input>& inputs, const std::string& target, const std::string& args,
                          const std::string& val, const std::string& extra = "") {
  std::string text;
  for (const auto& in : inputs) {
    text += "nodes { name: \"" + in.name + "\" op: \"placeholder\" target: \"" + in.name + "\" " +
            tensor_val(in.shape, in.dtype) + " }\n";
  }
  text += extra + "\n";
  text += "nodes { name: \"op\" op: \"call_function\" target: \"" + target + "\" " + args + " " + val + " }\n";
  text += "nodes { name: \"output\" op: \"output\" target: \"output\" args { list { items { node: \"op\" } } } }\n";
  text += "num_fwd_outputs: 1\n";
  auto msg = std::make_shared<proto::Graph>();
  if (!google::protobuf::TextFormat::ParseFromString(text, msg.get())) {
    throw std::runtime_error("bad test graph text:\n" + text);
  }
  pad_none_gradients(*msg);
  return validate(msg, "op_graph.pbtxt");
}

// `args { node: "a" } args { node: "b" } ...`
inline std::string node_args(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += "args { node: \"" + n + "\" } ";
  return text;
}

}  // namespace pt::test
