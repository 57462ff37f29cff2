#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "estimate/buffer_reuse.h"
#include "prepare/text_graph.h"

using namespace pt;

namespace {

// Buffers by position: a, b, c, f (16 bytes of float32 each), d (32 bytes
// of float32), e (16 bytes of bfloat16).
const Graph& buffers() {
  static const Graph g = test::graph_from_text(R"(
num_fwd_outputs: 1
$P(a)
$P(b)
$P(c)
nodes { name: "d" op: "placeholder" target: "d" val { tensor { shape: [8] stride: [1] dtype: "float32" device: "cpu" } } }
nodes { name: "e" op: "placeholder" target: "e" val { tensor { shape: [8] stride: [1] dtype: "bfloat16" device: "cpu" } } }
$P(f)
nodes { name: "output" op: "output" target: "output" args { list { items { node: "a" } } } }
)");
  return g;
}

int32_t at(const char* name) { return static_cast<int32_t>(buffers().find(name)); }

std::vector<BufferEvent> plan(std::vector<BufferEvent> allocations, std::vector<BufferEvent> frees,
                              std::vector<uint64_t> estimate = {10, 10, 10, 10, 10, 10, 10, 100}) {
  std::vector<NodeId> order;
  for (NodeId id = 0; id < buffers().output_node(); ++id) order.push_back(id);
  return plan_buffer_reuse(buffers(), order, std::move(allocations), std::move(frees), estimate);
}

}  // namespace

TEST_CASE("an allocation takes the last freed buffer of its size and dtype") {
  // a is freed after position 0; b, of a's size and dtype, is allocated at 2.
  CHECK(plan({{2, at("b")}}, {{0, at("a")}}) == std::vector<BufferEvent>{{2, at("a")}});
  // Two such buffers pooled: the most recently freed one is taken.
  CHECK(plan({{3, at("b")}}, {{0, at("a")}, {1, at("c")}}) == std::vector<BufferEvent>{{3, at("c")}});
  // Each pooled buffer is taken once.
  CHECK(plan({{3, at("b")}, {4, at("f")}}, {{0, at("a")}, {1, at("c")}}) ==
        std::vector<BufferEvent>{{3, at("c")}, {4, at("a")}});
}

TEST_CASE("a buffer of another size or dtype, or freed by the allocating kernel itself, is not taken") {
  CHECK(plan({{2, at("b")}}, {{0, at("d")}}).empty());  // 32 bytes
  CHECK(plan({{2, at("b")}}, {{0, at("e")}}).empty());  // bfloat16
  CHECK(plan({{2, at("b")}}, {{2, at("a")}}).empty());  // a kernel frees its inputs after it allocates
}

TEST_CASE("a buffer is held for reuse only while Inductor's estimate stays under its peak") {
  // The estimate peaks at 40 at position 0 and is 10 after it: a held
  // buffer (16 bytes) over positions 1-2 makes 26, a second one 42.
  const std::vector<uint64_t> low_after_start = {40, 10, 10, 10, 10, 10, 10, 10};
  CHECK(plan({{3, at("b")}, {3, at("f")}}, {{0, at("a")}, {0, at("c")}}, low_after_start) ==
        std::vector<BufferEvent>{{3, at("c")}});
  // The peak inside the range: the buffer stays pooled and is freed where it died.
  const std::vector<uint64_t> peak_between = {10, 10, 40, 10, 10, 10, 10, 10};
  CHECK(plan({{3, at("b")}}, {{0, at("a")}}, peak_between).empty());
  // Freed just before the allocation, nothing is held: taken at any estimate.
  CHECK(plan({{2, at("b")}}, {{1, at("a")}}, peak_between) == std::vector<BufferEvent>{{2, at("a")}});
}
