// run_kernels_whole: a fused kernel runs once what it reads from outside is
// ready, and its readers after it; views of its values join it; a kernel
// in a cycle of kernels that read each other, or one that spans too much of
// the pass, keeps the emitted order.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/node_op_classes.h"
#include "estimate/kernel_order.h"
#include "prepare/text_graph.h"
#include "settings/settings.h"

using namespace pt;

namespace {

const std::string kTensor = R"(val { tensor { shape: [4, 4] stride: [4, 1] dtype: "float32" device: "cuda:0" } })";

std::string node(const std::string& name, const std::string& target, const std::vector<std::string>& args,
                 const std::string& extra = "") {
  std::string text = "nodes { name: \"" + name + "\" op: \"call_function\" target: \"" + target + "\"";
  for (const std::string& a : args) text += " args { node: \"" + a + "\" }";
  return text + " " + extra + " " + kTensor + " }\n";
}

std::string placeholder(const std::string& name) {
  return "nodes { name: \"" + name + "\" op: \"placeholder\" target: \"" + name + "\" " + kTensor + " }\n";
}

struct Pass {
  Graph g;
  std::vector<NodeId> order;  // every node but the output, graph order
  std::vector<int32_t> kernel;
  Flags input;
};

// h, w, t are the pass's inputs; `kernel_members` share kernel 0.
Pass pass(const std::string& body, const std::vector<std::string>& kernel_members, const std::string& returned) {
  const std::string text = "num_fwd_outputs: 1\n" + placeholder("h") + placeholder("w") + placeholder("t") + body +
                           "nodes { name: \"output\" op: \"output\" target: \"output\" args { list { items { node: \"" +
                           returned + "\" } } } }\n";
  Pass p{test::graph_from_text(text), {}, {}, {}};
  p.kernel.assign(static_cast<size_t>(p.g.size()), -1);
  p.input.assign(static_cast<size_t>(p.g.size()), false);
  for (NodeId id = 0; id < p.g.output_node(); ++id) {
    p.order.push_back(id);
    if (p.g[id].op == OpKind::Placeholder) p.input[id] = true;
  }
  for (const std::string& name : kernel_members) p.kernel[p.g.find(name)] = 0;
  return p;
}

std::vector<std::string> names(const Pass& p) {
  std::vector<std::string> out;
  for (NodeId id : p.order) out.emplace_back(p.g[id].name);
  return out;
}

std::vector<std::string> reordered(Pass& p, bool& whole) {
  const Settings s;
  const NodeOpClasses ops(p.g, s.op_classes);
  whole = run_kernels_whole(p.g, ops, p.kernel, p.input, p.order);
  return names(p);
}

const std::string kMm = "aten.mm.default";

}  // namespace

TEST_CASE("a fused kernel runs after the matmul it reads, and the reader of its first value after it") {
  // r = relu(h) is emitted first and q = mm(r, w) reads it at once; the
  // kernel {r, d} also computes d = m * h, and m = mm(t, w) comes later.
  Pass p = pass(node("r", "aten.relu.default", {"h"}, "op_tags: \"pointwise\"") + node("q", kMm, {"r", "w"}) +
                    node("m", kMm, {"t", "w"}) + node("d", "aten.mul.Tensor", {"m", "h"}, "op_tags: \"pointwise\"") +
                    node("o", "aten.add.Tensor", {"q", "d"}, "op_tags: \"pointwise\""),
                {"r", "d"}, "o");
  CHECK(names(p) == std::vector<std::string>{"h", "w", "t", "r", "q", "m", "d", "o"});
  bool whole = false;
  CHECK(reordered(p, whole) == std::vector<std::string>{"h", "w", "t", "m", "r", "d", "q", "o"});
  CHECK(whole);
}

TEST_CASE("a view of a kernel's value runs inside that kernel") {
  // v views r; d = v * m is in r's kernel. Alone, v would stand between
  // the kernel's nodes (a cycle); in it, the kernel still waits for m.
  Pass p = pass(node("r", "aten.relu.default", {"h"}, "op_tags: \"pointwise\"") +
                    node("v", "aten.view.default", {"r"}, "args { list { items { int: 4 } items { int: 4 } } }") +
                    node("m", kMm, {"t", "w"}) + node("d", "aten.mul.Tensor", {"v", "m"}, "op_tags: \"pointwise\""),
                {"r", "d"}, "d");
  bool whole = false;
  CHECK(reordered(p, whole) == std::vector<std::string>{"h", "w", "t", "m", "r", "v", "d"});
  CHECK(whole);
}

TEST_CASE("kernels that read each other keep the emitted order") {
  // d reads q, which reads r: {r, d} would have to run before and after q.
  Pass p = pass(node("r", "aten.relu.default", {"h"}, "op_tags: \"pointwise\"") + node("q", kMm, {"r", "w"}) +
                    node("d", "aten.mul.Tensor", {"q", "h"}, "op_tags: \"pointwise\""),
                {"r", "d"}, "d");
  const std::vector<std::string> before = names(p);
  bool whole = true;
  CHECK(reordered(p, whole) == before);
  CHECK(!whole);
}

TEST_CASE("a kernel in a cycle runs node by node and the other kernels still run whole") {
  // {r, d} reads q, which reads r (a cycle); {r2, d2} waits for m2 as in
  // the first case.
  Pass p = pass(node("r", "aten.relu.default", {"h"}, "op_tags: \"pointwise\"") + node("q", kMm, {"r", "w"}) +
                    node("d", "aten.mul.Tensor", {"q", "h"}, "op_tags: \"pointwise\"") +
                    node("r2", "aten.relu.default", {"t"}, "op_tags: \"pointwise\"") + node("q2", kMm, {"r2", "w"}) +
                    node("m2", kMm, {"t", "w"}) + node("d2", "aten.mul.Tensor", {"m2", "t"}, "op_tags: \"pointwise\"") +
                    node("o", "aten.add.Tensor", {"q2", "d2"}, "op_tags: \"pointwise\"") +
                    node("o2", "aten.add.Tensor", {"o", "d"}, "op_tags: \"pointwise\""),
                {"r", "d"}, "o2");
  p.kernel[p.g.find("r2")] = 1;
  p.kernel[p.g.find("d2")] = 1;
  bool whole = true;
  CHECK(reordered(p, whole) ==
        std::vector<std::string>{"h", "w", "t", "r", "q", "d", "m2", "r2", "d2", "q2", "o", "o2"});
  CHECK(!whole);
}

TEST_CASE("a kernel wider than Inductor fuses runs node by node") {
  // 300 nodes between the kernel's two: more than 64 scheduler nodes.
  std::string body = node("r", "aten.relu.default", {"h"}, "op_tags: \"pointwise\"");
  std::string last = "t";
  for (int i = 0; i < 300; ++i) {
    const std::string name = "n" + std::to_string(i);
    body += node(name, "aten.neg.default", {last}, "op_tags: \"pointwise\"");
    last = name;
  }
  body += node("m", kMm, {last, "w"}) + node("d", "aten.mul.Tensor", {"m", "r"}, "op_tags: \"pointwise\"");
  Pass p = pass(body, {"r", "d"}, "d");
  const std::vector<std::string> before = names(p);
  bool whole = false;
  CHECK(reordered(p, whole) == before);
  CHECK(whole);
}
