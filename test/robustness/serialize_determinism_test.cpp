// serialize_message is a function of the message alone: maps (kwargs,
// metadata, a partition's settings) come out sorted by key in all three
// formats, whatever order the in-memory maps hold them in. Protobuf's maps
// iterate in a per-instance hash order, so fresh copies of one message
// would otherwise serialize differently.
#include <doctest/doctest.h>

#include <string>

#include "graph/graph_io.h"
#include "graph/schema.h"

namespace {

std::string key(int i) { return "key" + std::to_string(100 + i); }

pt::proto::Graph graph_with_maps() {
  pt::proto::Graph g;
  g.set_name("maps");
  auto* n = g.add_nodes();
  n->set_name("n");
  n->set_op("call_function");
  n->set_target("aten.sum.dim_IntList");
  for (int i = 0; i < 40; ++i) {
    (*g.mutable_metadata())[key(i)] = std::to_string(i);
    (*n->mutable_kwargs())[key(i)].set_int_(i);
  }
  return g;
}

}  // namespace

TEST_CASE("fresh copies of a message with maps serialize to the same bytes, maps sorted") {
  const pt::proto::Graph original = graph_with_maps();
  const std::string binary = pt::serialize_message(original, pt::Format::Binary);
  for (pt::Format f : {pt::Format::Binary, pt::Format::Text, pt::Format::Json}) {
    CAPTURE(pt::format_name(f));
    const std::string first = pt::serialize_message(original, f);
    for (int copy = 0; copy < 20; ++copy) {
      pt::proto::Graph fresh;  // a new map instance, so a new hash order
      REQUIRE(fresh.ParseFromString(binary));
      CHECK(pt::serialize_message(fresh, f) == first);
    }
    if (f != pt::Format::Binary) {
      size_t at = 0;
      for (int i = 0; i < 40; ++i) {
        const size_t next = first.find(key(i), at);
        CHECK(next != std::string::npos);
        at = next;
      }
    }
  }
}
