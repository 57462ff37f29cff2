// A graph split into its header and node records (record_store.h): the
// binary loader, which reads node by node, gives what splitting the whole
// parsed message gives, header fields included wherever they stand in the
// file; every record parses to its node; corrupt input is refused with the
// whole-message parser's one line (a corrupt node's record by validation,
// which parses each record).
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <google/protobuf/util/message_differencer.h>

#include "graph/errors.h"
#include "graph/graph_io.h"
#include "graph/record_store.h"
#include "graph/temp_dir.h"
#include "graph/validate.h"

namespace {

using google::protobuf::util::MessageDifferencer;

std::string corpus_path(const char* rel) { return std::string(PT_TEST_DIR) + "/corpus/" + rel; }

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// `split` holds `whole`: the same non-node fields, each node as a record,
// named as validation names it.
void check_split(const pt::SplitGraph& split, const pt::proto::Graph& whole) {
  pt::proto::Graph header = whole;
  header.clear_nodes();
  CHECK(MessageDifferencer::Equals(*split.header, header));
  REQUIRE(split.records->size() == whole.nodes_size());
  pt::proto::Node scratch;
  for (int k = 0; k < whole.nodes_size(); ++k) {
    REQUIRE(split.records->parse(k, scratch));
    CHECK(MessageDifferencer::Equals(scratch, whole.nodes(k)));
    split.records->add_name(scratch.name());
    CHECK(split.records->name(k) == whole.nodes(k).name());
  }
}

pt::proto::Graph small_graph() {
  pt::proto::Graph g;
  g.set_name("small");
  g.set_num_fwd_outputs(1);
  g.add_static_lifetime_input_indices(0);
  (*g.mutable_metadata())["producer"] = "test";
  for (const char* name : {"a", "b", "output"}) {
    pt::proto::Node& n = *g.add_nodes();
    n.set_name(name);
    n.set_op(std::string(name) == "output" ? "output" : "placeholder");
    n.set_target(name);
  }
  g.mutable_nodes(1)->add_args()->set_node("a");
  return g;
}

}  // namespace

TEST_CASE("the binary loader splits a corpus graph as splitting its whole message does") {
  for (const char* rel : {"linear_ce.pb", "gpt2_124m.pb", "mlp_dynamic.pb"}) {
    CAPTURE(rel);
    const auto whole = pt::read_graph(corpus_path(rel), pt::Format::Binary);
    check_split(pt::read_graph_records(corpus_path(rel), pt::Format::Binary), *whole);
    check_split(pt::split_graph(*whole), *whole);
  }
}

TEST_CASE("header fields anywhere in the file: the last name wins, metadata and indices merge") {
  pt::test::TempDir dir;
  const pt::proto::Graph g = small_graph();
  // Concatenated messages parse as one: a second header after the nodes.
  pt::proto::Graph later;
  later.set_name("renamed");
  later.add_static_lifetime_input_indices(1);
  (*later.mutable_metadata())["model"] = "m";
  const std::string bytes = g.SerializeAsString() + later.SerializeAsString();
  write_bytes(dir.file("g.pb"), bytes);
  pt::proto::Graph whole;
  REQUIRE(whole.ParseFromString(bytes));
  CHECK(whole.name() == "renamed");
  check_split(pt::read_graph_records(dir.file("g.pb"), pt::Format::Binary), whole);
  for (pt::Format f : {pt::Format::Text, pt::Format::Json}) {
    CAPTURE(pt::format_name(f));
    const std::string path = dir.file("g." + std::string(pt::format_name(f)));
    pt::write_message(path, f, whole);
    check_split(pt::read_graph_records(path, f), whole);
  }
}

TEST_CASE("one split validated twice: the second validation finds the names the first added") {
  const pt::SplitGraph split = pt::read_graph_records(corpus_path("linear_ce.pb"), pt::Format::Binary);
  const pt::Graph first = pt::validate(split, "linear_ce.pb");
  const pt::Graph second = pt::validate(split, "linear_ce.pb");
  CHECK(split.records->named() == split.records->size());
  CHECK(first.nodes == second.nodes);
}

TEST_CASE("a corrupt binary graph is refused with the whole-message parser's line") {
  pt::test::TempDir dir;
  const std::string bytes = small_graph().SerializeAsString();
  const std::string expected = ": not a valid binary protobuf partition_tool.proto.Graph (truncated, corrupt, or nested too deeply)";
  // Cut inside the last node, and a node's length prefix far past the end.
  write_bytes(dir.file("cut.pb"), bytes.substr(0, bytes.size() - 3));
  CHECK_THROWS_WITH_AS(pt::read_graph_records(dir.file("cut.pb"), pt::Format::Binary),
                       (dir.file("cut.pb") + expected).c_str(), pt::InputError);
  write_bytes(dir.file("long.pb"), std::string("\x12\xff\xff\xff\x7f", 5) + "abc");
  CHECK_THROWS_WITH_AS(pt::read_graph_records(dir.file("long.pb"), pt::Format::Binary),
                       (dir.file("long.pb") + expected).c_str(), pt::InputError);
  // A node whose own bytes do not parse: its name claims 5 bytes, the node holds none.
  write_bytes(dir.file("node.pb"), std::string("\x12\x02\x0a\x05", 4));
  CHECK_THROWS_WITH_AS(pt::validate(pt::read_graph_records(dir.file("node.pb"), pt::Format::Binary), dir.file("node.pb")),
                       (dir.file("node.pb") + expected).c_str(), pt::InputError);
  // A corrupt record is refused before the error of any node before it.
  pt::proto::Graph dangling = small_graph();
  dangling.mutable_nodes(1)->mutable_args(0)->set_node("nowhere");
  write_bytes(dir.file("late.pb"), dangling.SerializeAsString() + std::string("\x12\x02\x0a\x05", 4));
  CHECK_THROWS_WITH_AS(pt::validate(pt::read_graph_records(dir.file("late.pb"), pt::Format::Binary), dir.file("late.pb")),
                       (dir.file("late.pb") + expected).c_str(), pt::InputError);
  // Each is refused by the whole-message parser too.
  for (const char* name : {"cut.pb", "long.pb", "node.pb"}) {
    CAPTURE(name);
    CHECK_THROWS_AS(pt::read_graph(dir.file(name), pt::Format::Binary), pt::InputError);
  }
}
