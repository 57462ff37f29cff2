// graph/record_edit.h: an edit of a node record at the wire level writes
// exactly what protobuf writes for the same edit of the parsed message
// (deterministic serialization), and the result is a canonical record.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "cli/tool_runner.h"
#include "graph/node_records.h"
#include "graph/record_edit.h"
#include "graph/wire_canonical.h"

namespace {

namespace proto = pt::proto;

pt::GraphRecords corpus_records(const std::string& name) {
  auto owner = std::make_shared<std::string>(pt::test::read_all(std::string(PT_TEST_DIR) + "/corpus/" + name + ".pb"));
  pt::GraphRecords r;
  REQUIRE(pt::parse_graph_records(*owner, owner, 1, r));
  return r;
}

// protobuf's version of rename_node_refs: the message's references renamed.
void rename_in(proto::Arg* a, const std::map<std::string, std::string>& to) {
  if (a->kind_case() == proto::Arg::kNode) {
    const auto it = to.find(a->node());
    if (it != to.end()) a->set_node(it->second);
  } else if (a->kind_case() == proto::Arg::kList) {
    for (auto& item : *a->mutable_list()->mutable_items()) rename_in(&item, to);
  }
}

std::string protobuf_renamed(std::string_view record, const std::map<std::string, std::string>& to) {
  proto::Node n = pt::node_message(record);
  for (auto& a : *n.mutable_args()) rename_in(&a, to);
  for (auto& [key, a] : *n.mutable_kwargs()) rename_in(&a, to);
  return pt::serialize_node(n);
}

// A record with nested lists, kwargs (one holding a list) and fields after
// them, as protobuf writes it.
std::string nested_record() {
  proto::Node n;
  n.set_name("cat");
  n.set_op("call_function");
  n.set_target("aten.cat.default");
  proto::Arg* list = n.add_args();
  for (const char* ref : {"a", "b"}) list->mutable_list()->add_items()->set_node(ref);
  proto::Arg* inner = list->mutable_list()->add_items();
  inner->mutable_list()->add_items()->set_node("a");
  inner->mutable_list()->add_items()->set_int_(3);
  n.add_args()->set_int_(1);
  n.add_args();  // an Arg with no field set: written as an empty field
  (*n.mutable_kwargs())["out"].set_node("b");
  (*n.mutable_kwargs())["dims"].mutable_list()->add_items()->set_node("a");
  (*n.mutable_kwargs())["alpha"].set_float_(0.5);
  n.add_op_tags("pointwise");
  n.set_partitioner_tag("is_forward");
  n.set_module_path("layers.0");
  return pt::serialize_node(n);
}

}  // namespace

TEST_CASE("rename_node_refs writes what protobuf writes for the renamed message, on every corpus node") {
  std::mt19937 rng(7);
  for (const char* name : {"gpt2_124m", "linear_ce", "mlp_dynamic", "resnet18", "sac_mlp", "gpt2_dropout_l2"}) {
    INFO(name);
    const pt::GraphRecords r = corpus_records(name);
    // About a third of the names renamed, to names longer and shorter than
    // theirs (the length prefixes of the enclosing messages change).
    std::map<std::string, std::string> to;
    for (size_t k = 0; k < r.nodes->size(); ++k) {
      const std::string node(r.nodes->view(k).name());
      switch (rng() % 3) {
        case 0: to[node] = node + "_renamed_to_a_longer_name_" + std::string(150, 'x'); break;
        case 1: to[node] = "n" + std::to_string(k); break;
        default: break;
      }
    }
    const pt::RenameRef rename = [&](std::string_view ref) -> std::string_view {
      const auto it = to.find(std::string(ref));
      return it == to.end() ? std::string_view() : std::string_view(it->second);
    };
    size_t changed = 0;
    for (size_t k = 0; k < r.nodes->size(); ++k) {
      const std::string_view record = r.nodes->bytes(k);
      INFO("node " << r.nodes->view(k).name());
      const std::string ours = pt::rename_node_refs(record, rename);
      CHECK(ours == protobuf_renamed(record, to));
      CHECK(pt::wire::is_canonical_node(ours));
      changed += ours != record;
    }
    CHECK(changed > 0);
  }
}

TEST_CASE("rename_node_refs: nested lists, kwargs, empty args; a rename to nothing keeps the reference") {
  const std::string record = nested_record();
  REQUIRE(pt::wire::is_canonical_node(record));
  const std::map<std::string, std::string> to = {{"a", "a_much_longer_name_than_before"}, {"b", "B"}};
  const pt::RenameRef rename = [&](std::string_view ref) -> std::string_view {
    const auto it = to.find(std::string(ref));
    return it == to.end() ? std::string_view() : std::string_view(it->second);
  };
  const std::string ours = pt::rename_node_refs(record, rename);
  CHECK(ours == protobuf_renamed(record, to));
  CHECK(pt::wire::is_canonical_node(ours));
  const proto::Node back = pt::node_message(ours);
  CHECK(back.args(0).list().items(2).list().items(0).node() == "a_much_longer_name_than_before");
  CHECK(back.kwargs().at("out").node() == "B");
  CHECK(back.args_size() == 3);
  CHECK(back.module_path() == "layers.0");
  // Nothing renamed: the same bytes.
  CHECK(pt::rename_node_refs(record, [](std::string_view) { return std::string_view(); }) == record);
}

TEST_CASE("with_string_field sets, replaces and clears recompute as protobuf does, on every corpus node") {
  constexpr uint32_t kRecompute = 9;
  for (const char* name : {"gpt2_124m", "sac_mlp", "gpt2_dropout_l2", "resnet18"}) {
    INFO(name);
    const pt::GraphRecords r = corpus_records(name);
    for (size_t k = 0; k < r.nodes->size(); ++k) {
      const std::string_view record = r.nodes->bytes(k);
      for (const char* value : {"MUST_SAVE", "PREFER_RECOMPUTE", ""}) {
        INFO("node " << r.nodes->view(k).name() << " = '" << value << "'");
        proto::Node n = pt::node_message(record);
        n.set_recompute(value);
        const std::string ours = pt::with_string_field(record, kRecompute, value);
        CHECK(ours == pt::serialize_node(n));
        CHECK(pt::wire::is_canonical_node(ours));
      }
    }
  }
  // On a record with fields on both sides of 9, twice over.
  const std::string record = nested_record();
  proto::Node n = pt::node_message(record);
  n.set_recompute("MUST_SAVE");
  const std::string once = pt::with_string_field(record, kRecompute, "MUST_SAVE");
  CHECK(once == pt::serialize_node(n));
  n.set_recompute("PREFER_SAVE");
  CHECK(pt::with_string_field(once, kRecompute, "PREFER_SAVE") == pt::serialize_node(n));
  CHECK(pt::with_string_field(once, kRecompute, "") == record);
}
