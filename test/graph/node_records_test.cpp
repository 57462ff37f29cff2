// graph/node_records.h, node_view.h, wire_canonical.h: a binary graph read
// as records accepts exactly what protobuf accepts, every stored record is
// protobuf's deterministic serialization of the node protobuf parses, and
// the views read the values the generated message reads.
#include <doctest/doctest.h>

#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/logging.h>

#include "graph/errors.h"
#include "graph/graph_io.h"
#include "graph/node_records.h"
#include "graph/node_view.h"
#include "graph/view_checks.h"
#include "graph/wire_canonical.h"

namespace {

namespace proto = pt::proto;
using pt::test::check_node;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// protobuf's verdict and message, with the recursion limit graph_io uses.
bool protobuf_parse(const std::string& bytes, proto::Graph& out) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetRecursionLimit(64);
  return out.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

bool records_parse(const std::string& bytes, unsigned threads, pt::GraphRecords& out) {
  auto owner = std::make_shared<std::string>(bytes);
  return pt::parse_graph_records(*owner, owner, threads, out, 1);
}

std::string header_bytes(const proto::Graph& g) {
  proto::Graph h = g;
  h.clear_nodes();
  return pt::serialize_message(h, pt::Format::Binary);
}

// The records are the reference's nodes, serialized; the header its other fields.
void check_same_graph(const pt::GraphRecords& r, const proto::Graph& reference) {
  REQUIRE(r.nodes->size() == static_cast<size_t>(reference.nodes_size()));
  for (int k = 0; k < reference.nodes_size(); ++k) {
    INFO("node " << k);
    CHECK(r.nodes->bytes(static_cast<size_t>(k)) == pt::serialize_node(reference.nodes(k)));
  }
  CHECK(header_bytes(*r.header) == header_bytes(reference));
}

// A node using every field of the schema.
proto::Node full_node() {
  proto::Node n;
  n.set_name("cat");
  n.set_op("call_function");
  n.set_target("aten.cat.default");
  auto* list = n.add_args()->mutable_list();
  list->add_items()->set_node("a");
  list->add_items()->set_node("b");
  auto* nested = list->add_items()->mutable_list();
  nested->add_items()->set_int_(-3);
  nested->add_items()->set_float_(-0.0);
  n.add_args()->set_int_(1);
  n.add_args()->set_bool_(false);
  n.add_args()->set_none(true);
  n.add_args()->set_str("");
  n.add_args()->set_dtype("bfloat16");
  n.add_args()->set_device("cuda:0");
  n.add_args()->set_repr("torch.strided");
  (*n.mutable_kwargs())["out"].set_node("o");
  (*n.mutable_kwargs())["dim"].set_int_(0);
  (*n.mutable_kwargs())[""].set_bool_(true);
  auto* t = n.mutable_val()->mutable_tensor();
  for (int64_t d : {4, 0, 50257}) t->add_shape(d);
  for (int64_t s : {50257, 50257, 1}) t->add_stride(s);
  t->set_dtype("float32");
  t->set_device("cuda:0");
  for (const char* e : {"s0", "0", "50257"}) t->add_shape_expr(e);
  t->set_storage(0);
  t->set_storage_offset(-7);
  t->add_stride_expr("s0*2");
  t->set_storage_offset_expr("s1");
  n.add_op_tags("pointwise");
  n.add_op_tags("");
  n.set_mutable_(true);
  n.set_recompute("MUST_SAVE");
  n.set_ac_graph_id(0);
  n.set_partitioner_tag("is_backward");
  n.set_module_path("L['m'].fc");
  n.set_impure(true);
  n.set_has_backward_hook(true);
  n.set_memory_budget(0.5);
  return n;
}

std::string with_nodes(const std::vector<std::string>& records) {
  std::string out;
  for (const std::string& r : records) {
    out.push_back('\x12');
    std::string len;
    uint64_t v = r.size();
    do {
      len.push_back(static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
      v >>= 7;
    } while (v != 0);
    out += len + r;
  }
  return out;
}

}  // namespace

TEST_CASE("corpus graphs: every record is canonical, kept as it arrived, and read as protobuf reads it") {
  for (const char* name : {"gpt2_124m", "linear_ce", "mlp_dynamic", "resnet18", "sac_mlp", "gpt2_dropout_l2"}) {
    INFO(name);
    const std::string bytes = read_bytes(std::string(PT_TEST_DIR) + "/corpus/" + name + ".pb");
    proto::Graph reference;
    REQUIRE(protobuf_parse(bytes, reference));
    for (unsigned threads : {1u, 2u}) {
      pt::GraphRecords r;
      REQUIRE(records_parse(bytes, threads, r));
      check_same_graph(r, reference);
      for (size_t k = 0; k < r.nodes->size(); ++k) {
        CHECK(pt::wire::is_canonical_node(r.nodes->bytes(k)));
        // Views into the input itself, not copies.
        CHECK(r.nodes->bytes(k).data() != nullptr);
      }
    }
    pt::GraphRecords r;
    REQUIRE(records_parse(bytes, 1, r));
    for (int k = 0; k < reference.nodes_size(); ++k) {
      check_node(reference.nodes(k), r.nodes->view(static_cast<size_t>(k)));
      check_node(reference.nodes(k), r.nodes->fields(static_cast<size_t>(k)));
    }
  }
}

TEST_CASE("a node using every field: canonical, and both views read every value") {
  const proto::Node n = full_node();
  const std::string record = pt::serialize_node(n);
  CHECK(pt::wire::is_canonical_node(record));
  check_node(n, pt::NodeView(record));
  check_node(n, pt::NodeFields(record));
  // Kwargs come sorted by key, as deterministic serialization writes them.
  std::vector<std::string> keys;
  for (const pt::KwargView kv : pt::NodeView(record).kwargs()) keys.emplace_back(kv.first);
  CHECK(keys == std::vector<std::string>{"", "dim", "out"});
}

TEST_CASE("non-canonical records are re-serialized by protobuf, and read as it reads them") {
  const std::string canonical = pt::serialize_node(full_node());
  proto::Node tail;
  tail.set_module_path("later");
  proto::Node zero;
  zero.set_name("z");
  zero.mutable_val()->mutable_tensor()->set_dtype("float32");
  // Variants protobuf accepts but does not write itself.
  std::vector<std::string> variants = {
      canonical + pt::serialize_node(tail),               // a singular field twice (the last wins)
      pt::serialize_node(tail) + canonical,               // fields out of order
      canonical + std::string("\xa8\x06\x01", 3),         // an unknown field (101)
      canonical + std::string("\x08\x05", 2),             // field 1 (name) with the varint wire type
      canonical + std::string("\x40\x00", 2),             // mutable = false written out
      canonical + std::string("\x40\x02", 2),             // a bool written as 2
      std::string("\x0a\x04na\xc3\xa9", 6),                // a non-ASCII (valid UTF-8) name
      std::string("\x0a\x80\x00", 3),                      // a length in two bytes (empty name)
      std::string("\x0a\x81\x00x", 4),                     // name "x" with its length in two bytes
      std::string("\x0a\x01x\x22\x03\x10\x87\x00", 8),     // args[0].int = 7 in two bytes
      // val.tensor.shape unpacked: Value{tensor{shape: 2 (varint), shape: 3}}
      std::string("\x0a\x01x\x32\x06\x0a\x04\x08\x02\x08\x03", 11),
      // kwargs out of key order: {"b": none, "a": none}
      std::string("\x0a\x01x\x2a\x07\x0a\x01" "b" "\x12\x02\x30\x01\x2a\x07\x0a\x01" "a" "\x12\x02\x30\x01", 21),
      // an Arg with two members of its oneof (int, then str: the last wins)
      std::string("\x0a\x01x\x22\x05\x10\x07\x2a\x01y", 10),
      // The bool rules where the field order is right: mutable and
      // has_backward_hook = false written out, args[0].bool written as 2.
      std::string("\x0a\x01x\x40\x00", 5),
      std::string("\x0a\x01x\x70\x00", 5),
      std::string("\x0a\x01x\x22\x02\x20\x02", 7),
      // Inside val, kwargs and lists: each message's own rules.
      // val.tensor.storage_offset = 0 written out
      std::string("\x0a\x01\x78\x32\x07\x0a\x05\x1a\x01\x66\x38\x00", 12),
      // val.tensor.dtype twice
      std::string("\x0a\x01\x78\x32\x08\x0a\x06\x1a\x01\x66\x1a\x01\x67", 13),
      // val.tensor.shape as an empty packed run
      std::string("\x0a\x01\x78\x32\x04\x0a\x02\x0a\x00", 9),
      // val with two members (tensor, then none)
      std::string("\x0a\x01\x78\x32\x07\x0a\x03\x1a\x01\x66\x20\x01", 12),
      // val.sym.hint = 0 written out
      std::string("\x0a\x01\x78\x32\x07\x1a\x05\x0a\x01\x69\x18\x00", 12),
      // val.tuple.items[0].none written as 2
      std::string("\x0a\x01\x78\x32\x06\x12\x04\x0a\x02\x20\x02", 11),
      // a kwargs entry with its value twice
      std::string("\x0a\x01\x78\x2a\x0b\x0a\x01\x61\x12\x02\x30\x01\x12\x02\x30\x01", 16),
      // a kwargs entry with the value before the key
      std::string("\x0a\x01\x78\x2a\x07\x12\x02\x30\x01\x0a\x01\x61", 12),
      // args[0].list.items[0] with two members
      std::string("\x0a\x01\x78\x22\x08\x3a\x06\x0a\x04\x10\x01\x10\x02", 13),
  };
  for (size_t i = 0; i < variants.size(); ++i) {
    INFO("variant " << i);
    const std::string& record = variants[i];
    CHECK_FALSE(pt::wire::is_canonical_node(record));
    const std::string bytes = with_nodes({record, pt::serialize_node(zero)});
    proto::Graph reference;
    REQUIRE(protobuf_parse(bytes, reference));
    pt::GraphRecords r;
    REQUIRE(records_parse(bytes, 1, r));
    check_same_graph(r, reference);
    check_node(reference.nodes(0), r.nodes->view(0));
    check_node(reference.nodes(0), r.nodes->fields(0));
  }
}

TEST_CASE("a byte with its top bit anywhere in a string of any length to 40 makes the record non-canonical") {
  // The ASCII check reads 8 and 4 bytes a step with overlapping tails: a
  // byte it missed would skip protobuf's UTF-8 check. A name, an op target
  // and a tensor's dtype (three strings at three depths), each alone.
  const google::protobuf::LogSilencer quiet;  // protobuf logs each string that is not UTF-8
  for (size_t length = 1; length <= 40; ++length) {
    for (size_t at = 0; at <= length; ++at) {  // at == length: all ASCII
      CAPTURE(length);
      CAPTURE(at);
      std::string text(length, 'a');
      if (at < length) text[at] = static_cast<char>(at % 2 == 0 ? 0x80 : 0xff);
      const bool ascii = at == length;
      proto::Node name;
      name.set_name(text);
      CHECK(pt::wire::is_canonical_node(pt::serialize_node(name)) == ascii);
      proto::Node target;
      target.set_name("n");
      target.set_target(text);
      CHECK(pt::wire::is_canonical_node(pt::serialize_node(target)) == ascii);
      proto::Node dtype;
      dtype.set_name("n");
      dtype.mutable_val()->mutable_tensor()->set_dtype(text);
      CHECK(pt::wire::is_canonical_node(pt::serialize_node(dtype)) == ascii);
    }
  }
}

TEST_CASE("invalid records are rejected as protobuf rejects them") {
  const google::protobuf::LogSilencer quiet;
  const std::vector<std::string> invalid = {
      std::string("\x0a\x02\xff\xfe", 4),      // a name that is not UTF-8
      std::string("\x0a\x05" "ab", 4),          // a field longer than the record
      std::string("\x10", 1),                   // a truncated varint field
      std::string("\x00\x01", 2),               // tag 0
      std::string("\x0b", 1),                   // an unclosed group
  };
  for (size_t i = 0; i < invalid.size(); ++i) {
    INFO("record " << i);
    const std::string bytes = with_nodes({invalid[i]});
    proto::Graph reference;
    REQUIRE_FALSE(protobuf_parse(bytes, reference));
    pt::GraphRecords r;
    CHECK_FALSE(records_parse(bytes, 1, r));
  }
  // Nesting past protobuf's recursion limit (64 levels from the graph).
  proto::Node deep;
  deep.set_name("d");
  proto::Arg* a = deep.add_args();
  for (int level = 0; level < 40; ++level) a = a->mutable_list()->add_items();
  a->set_int_(1);
  const std::string bytes = with_nodes({pt::serialize_node(deep)});
  proto::Graph reference;
  const bool accepted = protobuf_parse(bytes, reference);
  CHECK_FALSE(accepted);
  pt::GraphRecords r;
  CHECK(records_parse(bytes, 1, r) == accepted);
}

TEST_CASE("mutated graphs: accepted exactly when protobuf accepts them, with protobuf's nodes") {
  // Byte changes, insertions and deletions of real graphs (fixed seed).
  const google::protobuf::LogSilencer quiet;  // protobuf logs each string that is not UTF-8
  std::mt19937 rng(20261130);
  int accepted = 0, rejected = 0;
  for (const char* name : {"linear_ce", "mlp_dynamic"}) {
    const std::string original = read_bytes(std::string(PT_TEST_DIR) + "/corpus/" + name + ".pb");
    for (int round = 0; round < 1500; ++round) {
      std::string bytes = original;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        const size_t at = rng() % bytes.size();
        const auto byte = static_cast<char>(rng() % 256);
        switch (rng() % 3) {
          case 0: bytes[at] = byte; break;
          case 1: bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), byte); break;
          default: bytes.erase(at, 1); break;
        }
      }
      INFO(name << " round " << round);
      proto::Graph reference;
      const bool ok = protobuf_parse(bytes, reference);
      pt::GraphRecords r;
      REQUIRE(records_parse(bytes, 1 + static_cast<unsigned>(round % 2), r) == ok);
      if (!ok) {
        ++rejected;
        continue;
      }
      ++accepted;
      check_same_graph(r, reference);
      for (int k = 0; k < reference.nodes_size(); ++k) check_node(reference.nodes(k), r.nodes->view(static_cast<size_t>(k)));
    }
  }
  // Both outcomes were exercised.
  CHECK(accepted > 100);
  CHECK(rejected > 100);
}

TEST_CASE("a parsed message with a string that is not UTF-8 is refused, naming the node and the field") {
  // Text and JSON parsers let such strings through; a record cannot hold them.
  const auto refused = [](const proto::Node& n) {
    proto::Graph g;
    *g.add_nodes() = n;
    try {
      pt::records_of(g, "g.pbtxt");
    } catch (const pt::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  proto::Node n;
  n.set_name("n");
  (*n.mutable_kwargs())["k"].set_str("\xff");
  CHECK(refused(n) == "g.pbtxt: node 'n': kwargs.k.str is not valid UTF-8 (protobuf strings must be)");
  n.clear_kwargs();
  n.add_args()->set_int_(1);
  n.add_args()->mutable_list()->add_items()->set_str("ok \xc3\xa9");  // valid UTF-8, not ASCII: accepted
  CHECK(refused(n) == "accepted");
  n.mutable_args(1)->mutable_list()->add_items()->set_repr("\xc3");
  CHECK(refused(n) == "g.pbtxt: node 'n': args[1].list.items[1].repr is not valid UTF-8 (protobuf strings must be)");
  n.clear_args();
  n.add_op_tags("pointwise");
  n.add_op_tags("\xed\xa0\x80");  // a UTF-16 surrogate, encoded
  CHECK(refused(n) == "g.pbtxt: node 'n': op_tags[1] is not valid UTF-8 (protobuf strings must be)");
}
