// schemas/node_records.proto: the views of a node record (NodeFields, through
// which the binary writer builds placeholders, and NodeCall, through which
// CSE keys read a node's call) hold every field of graph.proto's Node under
// its number, so a record parses into them with nothing kept aside as
// unknown and a placeholder carries the fields placeholder_node copies.
#include <doctest/doctest.h>

#include <string>

#include "graph/schema.h"
#include "node_records.pb.h"

namespace {

void check_numbers_every_node_field(const google::protobuf::Descriptor* view) {
  const auto* node = partition_tool::proto::Node::descriptor();
  CAPTURE(view->name());
  CHECK(view->field_count() == node->field_count());
  for (int k = 0; k < node->field_count(); ++k) {
    const auto* field = node->field(k);
    CAPTURE(field->name());
    const auto* same = view->FindFieldByNumber(field->number());
    REQUIRE(same != nullptr);
    CHECK(same->name() == field->name());
    CHECK(same->is_repeated() == field->is_repeated());
    CHECK(same->has_presence() == field->has_presence());
  }
}

}  // namespace

TEST_CASE("NodeFields and NodeCall number every field of Node as graph.proto does") {
  check_numbers_every_node_field(partition_tool::proto::NodeFields::descriptor());
  check_numbers_every_node_field(partition_tool::proto::NodeCall::descriptor());
}
