// graph/parallel_parse.h: the record-by-record binary parse builds the
// message protobuf's own parser builds, and rejects what it rejects.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "graph/arena_graph.h"
#include "graph/graph_io.h"
#include "graph/parallel_parse.h"

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string encoded(const pt::proto::Graph& g) { return pt::serialize_message(g, pt::Format::Binary); }

}  // namespace

TEST_CASE("gpt2_124m parses to the same message on 1, 2 and 7 threads") {
  const std::string bytes = read_bytes(std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb");
  pt::proto::Graph reference;
  REQUIRE(reference.ParseFromString(bytes));
  REQUIRE(reference.nodes_size() > 2000);
  for (unsigned threads : {1u, 2u, 7u}) {
    pt::proto::Graph g;
    REQUIRE(pt::parse_graph_binary(bytes, &g, threads, 1));
    CHECK(g.nodes_size() == reference.nodes_size());
    CHECK(encoded(g) == encoded(reference));
  }
}

TEST_CASE("other fields between the nodes keep protobuf's meaning") {
  pt::proto::Graph a, b, c;
  a.set_name("first");
  a.add_nodes()->set_name("n0");
  b.set_name("second");  // a repeated scalar field: the last one wins
  b.set_num_fwd_outputs(3);
  b.add_nodes()->set_name("n1");
  (*b.mutable_metadata())["k"] = "v";
  c.add_nodes()->set_name("n2");
  c.add_static_lifetime_input_indices(5);
  const std::string bytes = a.SerializeAsString() + b.SerializeAsString() + c.SerializeAsString();
  pt::proto::Graph reference;
  REQUIRE(reference.ParseFromString(bytes));
  pt::proto::Graph g;
  REQUIRE(pt::parse_graph_binary(bytes, &g, 2, 1));
  CHECK(g.name() == "second");
  REQUIRE(g.nodes_size() == 3);
  CHECK(g.nodes(2).name() == "n2");
  CHECK(encoded(g) == encoded(reference));
}

TEST_CASE("truncated and corrupt inputs are rejected, as protobuf rejects them") {
  const std::string bytes = read_bytes(std::string(PT_TEST_DIR) + "/corpus/linear_ce.pb");
  pt::proto::Graph g;
  REQUIRE(pt::parse_graph_binary(bytes, &g, 2, 1));
  for (size_t cut : {size_t{1}, bytes.size() / 3, bytes.size() - 1}) {
    const std::string truncated = bytes.substr(0, cut);
    pt::proto::Graph reference, parsed;
    const bool protobuf_accepts = reference.ParseFromString(truncated);
    CHECK(pt::parse_graph_binary(truncated, &parsed, 2, 1) == protobuf_accepts);
  }
  pt::proto::Graph parsed;
  CHECK_FALSE(pt::parse_graph_binary(std::string("\x12\x7f", 2), &parsed, 2, 1));  // a node longer than the input
  CHECK_FALSE(pt::parse_graph_binary(std::string("\x12\x02\x00\x00", 4), &parsed, 2, 1));  // tag 0 inside a node
  CHECK(pt::parse_graph_binary(std::string(), &parsed, 2, 1));  // empty: a valid empty graph
}

TEST_CASE("the node run split into byte ranges: the message protobuf builds, whatever the layout around it") {
  // name, 40 nodes, then fields: the usual layout, split into ranges; then
  // layouts where a node follows the trailing fields or a field sits
  // between nodes (parsed record by record instead), on 2 to 6 threads.
  pt::proto::Graph head, nodes, tail, late_node;
  head.set_name("g");
  for (int i = 0; i < 40; ++i) nodes.add_nodes()->set_name("n" + std::to_string(i) + std::string(i % 7 * 9, 'x'));
  tail.set_num_fwd_outputs(2);
  tail.add_static_lifetime_input_indices(1);
  (*tail.mutable_metadata())["k"] = "v";
  late_node.add_nodes()->set_name("late");
  const std::string usual = encoded(head) + encoded(nodes) + encoded(tail);
  const std::string node_after_fields = usual + encoded(late_node);
  const std::string field_between = encoded(head) + encoded(nodes) + encoded(tail) + encoded(nodes);
  for (const std::string* bytes : {&usual, &node_after_fields, &field_between}) {
    pt::proto::Graph reference;
    REQUIRE(reference.ParseFromString(*bytes));
    for (unsigned threads = 2; threads <= 6; ++threads) {
      CAPTURE(threads);
      pt::proto::Graph g;
      REQUIRE(pt::parse_graph_binary(*bytes, &g, threads, 1));
      CHECK(encoded(g) == encoded(reference));
    }
    for (size_t cut = 1; cut < bytes->size(); cut += 37) {  // truncated anywhere: rejected as protobuf rejects
      const std::string truncated = bytes->substr(0, cut);
      pt::proto::Graph r, g;
      CHECK(pt::parse_graph_binary(truncated, &g, 3, 1) == r.ParseFromString(truncated));
    }
  }
}

TEST_CASE("the ranges' nodes move into a graph on an arena (as the tool parses) without copies") {
  const std::string bytes = read_bytes(std::string(PT_TEST_DIR) + "/corpus/gpt2_124m.pb");
  pt::proto::Graph reference;
  REQUIRE(reference.ParseFromString(bytes));
  const auto g = pt::new_arena_graph();
  REQUIRE(pt::parse_graph_binary(bytes, g.get(), 3, 1));
  CHECK(encoded(*g) == encoded(reference));
  CHECK(g->nodes(0).GetArena() == g->GetArena());
}
