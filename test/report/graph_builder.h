// Hand-written joint graphs for the report tests, built node by node:
//   GraphBuilder b;
//   b.input("x", {100, 10});
//   b.op("e", "aten.exp.default", {"x"}, {100, 10});
//   b.op("s", "aten.sum.dim_IntList", {"e"}, {100, 1}, "float32", {"reduction"});
//   Graph g = b.build({"s"});
// Args are node names; `extra_args` appends constant args in text format.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>

#include "analysis/subgraph.h"
#include "graph/validate.h"
#include "support/none_gradients.h"

namespace pt::test {

class GraphBuilder {
 public:
  GraphBuilder& input(const std::string& name, const std::vector<int64_t>& shape, const std::string& dtype = "float32",
                      const std::string& tag = "is_forward") {
    text_ += "nodes { name: \"" + name + "\" op: \"placeholder\" target: \"" + name + "\" " + val(shape, dtype) +
             " partitioner_tag: \"" + tag + "\" }\n";
    return *this;
  }

  // A placeholder with explicit strides (a channels-last activation).
  GraphBuilder& strided_input(const std::string& name, const std::vector<int64_t>& shape,
                              const std::vector<int64_t>& stride, const std::string& dtype = "float32") {
    text_ += "nodes { name: \"" + name + "\" op: \"placeholder\" target: \"" + name + "\" " +
             val(shape, dtype, stride) + " partitioner_tag: \"is_forward\" }\n";
    return *this;
  }

  GraphBuilder& op(const std::string& name, const std::string& target, const std::vector<std::string>& args,
                   const std::vector<int64_t>& shape, const std::string& dtype = "float32",
                   const std::vector<std::string>& tags = {}, const std::string& extra_args = "",
                   const std::vector<int64_t>& stride = {}) {
    text_ += "nodes { name: \"" + name + "\" op: \"call_function\" target: \"" + target + "\" ";
    for (const auto& a : args) text_ += "args { node: \"" + a + "\" } ";
    text_ += extra_args + " " + val(shape, dtype, stride);
    for (const auto& t : tags) text_ += " op_tags: \"" + t + "\"";
    text_ += " }\n";
    return *this;
  }

  // A multi-output op (var_mean): one tensor of `item_shapes[i]` per item,
  // read through item().
  GraphBuilder& tuple_op(const std::string& name, const std::string& target, const std::vector<std::string>& args,
                         const std::vector<std::vector<int64_t>>& item_shapes, const std::string& dtype = "float32",
                         const std::vector<std::string>& tags = {}, const std::string& extra_args = "") {
    text_ += "nodes { name: \"" + name + "\" op: \"call_function\" target: \"" + target + "\" ";
    for (const auto& a : args) text_ += "args { node: \"" + a + "\" } ";
    text_ += extra_args + " val { tuple {";
    for (const auto& shape : item_shapes) text_ += " items { " + tensor(shape, dtype) + " }";
    text_ += " } }";
    for (const auto& t : tags) text_ += " op_tags: \"" + t + "\"";
    text_ += " }\n";
    return *this;
  }

  // operator.getitem of item `index` of tuple_op `tuple`.
  GraphBuilder& item(const std::string& name, const std::string& tuple, int index, const std::vector<int64_t>& shape,
                     const std::string& dtype = "float32") {
    text_ += "nodes { name: \"" + name + "\" op: \"call_function\" target: \"operator.getitem\" args { node: \"" +
             tuple + "\" } args { int: " + std::to_string(index) + " } " + val(shape, dtype) + " }\n";
    return *this;
  }

  Graph build(const std::vector<std::string>& outputs, int num_fwd_outputs = -1) const {
    std::string text = text_ + "nodes { name: \"output\" op: \"output\" target: \"output\" args { list {";
    for (const auto& o : outputs) text += " items { node: \"" + o + "\" }";
    text += " } } }\n";
    text += "num_fwd_outputs: " +
            std::to_string(num_fwd_outputs < 0 ? static_cast<int>(outputs.size()) : num_fwd_outputs) + "\n";
    auto msg = std::make_shared<proto::Graph>();
    if (!google::protobuf::TextFormat::ParseFromString(text, msg.get())) {
      throw std::runtime_error("bad test graph text:\n" + text);
    }
    msg->set_name("test");
    pad_none_gradients(*msg);  // the outputs, then a none gradient per primal not given one
    return validate(msg, "test.pbtxt");
  }

 private:
  static std::string val(const std::vector<int64_t>& shape, const std::string& dtype,
                         const std::vector<int64_t>& stride = {}) {
    return "val { " + tensor(shape, dtype, stride) + " }";
  }

  // `stride` empty: none recorded (contiguous).
  static std::string tensor(const std::vector<int64_t>& shape, const std::string& dtype,
                            const std::vector<int64_t>& stride = {}) {
    auto list = [](const std::vector<int64_t>& v) {
      std::string text;
      for (size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + std::to_string(v[i]);
      return text;
    };
    return "tensor { shape: [" + list(shape) + "] dtype: \"" + dtype + "\" device: \"cuda:0\"" +
           (stride.empty() ? "" : " stride: [" + list(stride) + "]") + " }";
  }

  std::string text_;
};

// The whole graph as one pass: every node kept, the placeholders and the
// nodes named in `loaded` its inputs (what the pass reads from memory).
inline Subgraph whole_pass(const Graph& g, const std::vector<std::string>& loaded = {}) {
  Subgraph pass;
  pass.keep.assign(static_cast<size_t>(g.size()), true);
  pass.is_input.assign(static_cast<size_t>(g.size()), false);
  for (NodeId id = 0; id < g.size(); ++id) pass.is_input[id] = g[id].op == OpKind::Placeholder;
  for (const auto& name : loaded) pass.is_input[g.find(name)] = true;
  return pass;
}

}  // namespace pt::test
