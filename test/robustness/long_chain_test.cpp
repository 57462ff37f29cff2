// No recursion on graph depth: a chain of 1,000,000 ops (x -> relu -> relu
// -> ... -> sum, with a backward reading the chain's end) is generated as a
// binary .pb in a temporary directory, then the tool validates, partitions
// it and writes the partition and the JSON report, with its default stack.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "cli/tool_runner.h"
#include "graph/schema.h"

namespace {

using pt::proto::Graph;
using pt::proto::Node;

// PT_LONG_CHAIN_LENGTH overrides the length: the sanitizer build (-O0, ASan)
// runs 100,000 (a million takes it 400 s; the release suite runs the million).
int chain_length() {
  const char* env = std::getenv("PT_LONG_CHAIN_LENGTH");
  return env ? std::atoi(env) : 1'000'000;
}

void set_tensor(Node* n, bool scalar = false) {
  auto* t = n->mutable_val()->mutable_tensor();
  if (!scalar) {
    t->add_shape(4);
    t->add_stride(1);
  }
  t->set_dtype("float32");
  t->set_device("cpu");
}

Node* add_node(Graph& g, const std::string& name, const std::string& op, const std::string& target) {
  Node* n = g.add_nodes();
  n->set_name(name);
  n->set_op(op);
  n->set_target(target);
  return n;
}

Node* add_call(Graph& g, const std::string& name, const std::string& target, std::initializer_list<std::string> args) {
  Node* n = add_node(g, name, "call_function", target);
  for (const auto& a : args) n->add_args()->set_node(a);
  set_tensor(n);
  return n;
}

// x (a parameter), tangents_1, c1 = relu(x), ..., cN = relu(c<N-1>),
// loss = sum(cN), grad_x = tangents_1 * cN; outputs [loss, grad_x].
Graph chain(int length) {
  Graph g;
  g.set_name("chain");
  g.set_num_fwd_outputs(1);
  g.add_static_lifetime_input_indices(0);
  set_tensor(add_node(g, "x", "placeholder", "x"));
  set_tensor(add_node(g, "tangents_1", "placeholder", "tangents_1"), true);
  std::string prev = "x";
  for (int i = 1; i <= length; ++i) {
    std::string name = "c" + std::to_string(i);
    add_call(g, name, "aten.relu.default", {prev})->add_op_tags("pointwise");
    prev = std::move(name);
  }
  Node* loss = add_call(g, "loss", "aten.sum.default", {prev});
  loss->mutable_val()->mutable_tensor()->clear_shape();
  loss->mutable_val()->mutable_tensor()->clear_stride();
  loss->add_op_tags("reduction");
  add_call(g, "grad_x", "aten.mul.Tensor", {"tangents_1", prev})->add_op_tags("pointwise");
  auto* out = add_node(g, "output", "output", "output")->add_args()->mutable_list();
  out->add_items()->set_node("loss");
  out->add_items()->set_node("grad_x");
  return g;
}

}  // namespace

TEST_CASE("a 1,000,000-op chain validates and partitions") {
  pt::test::TempDir work;
  const std::string path = work.file("chain.pb");
  {
    std::ofstream out(path, std::ios::binary);
    REQUIRE(chain(chain_length()).SerializeToOstream(&out));
  }
  const pt::test::ToolResult r = pt::test::run_tool(
      {"--input", path, "--output", work.file("p.pb"), "--report-json", work.file("r.json")});
  CAPTURE(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.starts_with("chain: saved "));
  CHECK(!pt::test::read_all(work.file("p.pb")).empty());
  CHECK(pt::test::read_all(work.file("r.json")).find("\"saved_values\"") != std::string::npos);
}
