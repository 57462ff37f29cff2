// Hand-written convolution graphs for the estimate tests: one
// convolution_backward node "op" of given weight, groups and stride.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/op_graph.h"

namespace pt::test {

// `stride`, padding 1, dilation 1, not transposed, no output padding, `groups`.
inline std::string conv_tail(int groups, int stride = 1) {
  const std::string s = std::to_string(stride);
  return "args { list { items { int: " + s + " } items { int: " + s + R"( } } }
            args { list { items { int: 1 } items { int: 1 } } }
            args { list { items { int: 1 } items { int: 1 } } } args { bool: false }
            args { list { items { int: 0 } items { int: 0 } } } args { int: )" +
         std::to_string(groups) + " }";
}

// convolution_backward of x [2,4,5,5] (grad_output `out`, of stride
// `stride`) with weight `w`, grad_input requested when `input_grad`,
// grad_weight always.
inline Graph conv_backward(const std::vector<int64_t>& w, int groups, int stride = 1,
                           const std::vector<int64_t>& out = {2, 4, 5, 5}, bool input_grad = true) {
  const std::vector<Input> in = {{"go", out}, {"x", {2, 4, 5, 5}}, {"w", w}};
  return one_op_graph(in, "aten.convolution_backward.default",
                      node_args({"go", "x", "w"}) + "args { list { items { int: 4 } } } " + conv_tail(groups, stride) +
                          " args { list { items { bool: " + (input_grad ? "true" : "false") +
                          " } items { bool: true } items { bool: false } } }",
                      tuple_val({input_grad ? std::vector<int64_t>{2, 4, 5, 5} : std::vector<int64_t>{}, w, {}}));
}

}  // namespace pt::test
