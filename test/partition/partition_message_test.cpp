// partition/partition_message.h: the binary writer's view of a node record
// (node_records.proto's NodeFields) holds every field of graph.proto's Node
// under its number, so a placeholder built through it carries the fields
// placeholder_node copies and nothing is kept aside as unknown.
#include <doctest/doctest.h>

#include <string>

#include "graph/schema.h"
#include "node_records.pb.h"

TEST_CASE("NodeFields numbers every field of Node as graph.proto does") {
  const auto* node = partition_tool::proto::Node::descriptor();
  const auto* view = partition_tool::proto::NodeFields::descriptor();
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
