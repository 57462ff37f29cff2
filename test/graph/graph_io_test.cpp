// Reading and writing graphs: every corpus graph loads, validates and
// round-trips through every format unchanged; format names and extensions;
// the JSON mapping's details (64-bit integers as strings, unknown fields,
// non-finite floats); atomic writes.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <google/protobuf/util/message_differencer.h>

#include "graph/errors.h"
#include "graph/graph_io.h"
#include "graph/json_signed_zero.h"
#include "graph/temp_dir.h"
#include "graph/validate.h"

namespace {

using google::protobuf::util::MessageDifferencer;

struct CorpusGraph {
  const char* path;  // under test/corpus
  const char* name;
  int nodes;
  int primals;
  int parameters;  // static_lifetime_input_indices
  int outputs;     // flattened output list
};

// Counts from shared/corpus/README.md and the graphs themselves.
constexpr CorpusGraph kCorpus[] = {
    {"linear_ce.pb", "linear_ce", 63, 3, 1, 4},
    {"gpt2_124m.pb", "gpt2_124m", 2403, 149, 148, 150},
    {"gpt2_dropout_l2.pb", "gpt2_dropout_l2", 540, 29, 28, 30},
    {"resnet18.pb", "resnet18", 1428, 124, 122, 125},
    {"mlp_dynamic.pb", "mlp_dynamic", 120, 11, 8, 12},
    {"sac_mlp.pb", "sac_mlp", 258, 20, 18, 21},
    {"scale/gpt2_l24.pb", "gpt2_l24", 4679, 293, 292, 294},
    {"scale/gpt2_l48.pb", "gpt2_l48", 9239, 581, 580, 582},
    {"scale/gpt2_l96.pb", "gpt2_l96", 18359, 1157, 1156, 1158},
};

std::string corpus_path(const char* rel) { return std::string(PT_TEST_DIR) + "/corpus/" + rel; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("every corpus graph loads, validates and round-trips pb -> json -> pb and pb -> pbtxt -> pb") {
  pt::test::TempDir dir;
  for (const auto& c : kCorpus) {
    CAPTURE(c.path);
    const auto original = pt::read_graph(corpus_path(c.path), pt::Format::Binary);
    CHECK(original->name() == c.name);
    CHECK(original->nodes_size() == c.nodes);
    CHECK(original->num_fwd_outputs() == 1);
    CHECK(original->static_lifetime_input_indices_size() == c.parameters);
    const pt::Graph g = pt::validate(original, c.path);
    CHECK(g.size() == c.nodes);
    CHECK(static_cast<int>(g.primals.size()) == c.primals);
    CHECK(static_cast<int>(g.outputs.size()) == c.outputs);
    CHECK(g.nodes.back().op == pt::OpKind::Output);

    for (pt::Format f : {pt::Format::Json, pt::Format::Text}) {
      CAPTURE(pt::format_name(f));
      const std::string via = dir.file("g." + std::string(pt::format_name(f)));
      pt::write_message(via, f, *original);
      const auto middle = pt::read_graph(via, f);
      CHECK(MessageDifferencer::Equals(*original, *middle));
      pt::write_message(dir.file("back.pb"), pt::Format::Binary, *middle);
      const auto back = pt::read_graph(dir.file("back.pb"), pt::Format::Binary);
      CHECK(MessageDifferencer::Equals(*original, *back));
      // Deterministic serialization: the bytes are those of the stored file.
      CHECK(slurp(dir.file("back.pb")) == slurp(corpus_path(c.path)));
    }
  }
}

TEST_CASE("the sample graphs load and validate") {
  const auto tiny = pt::read_graph(std::string(PT_SAMPLE_DIR) + "/tiny_mlp.pbtxt", pt::Format::Text);
  const pt::Graph g = pt::validate(tiny, "tiny_mlp.pbtxt");
  CHECK(g.size() == 15);
  CHECK(g.primals.size() == 2);
  CHECK(g.static_lifetime[g.find("primals_1")]);
  CHECK_FALSE(g.static_lifetime[g.find("primals_2")]);
  CHECK(g[g.find("tangents_1")].input_kind == pt::InputKind::Tangent);
  CHECK(g.outputs == std::vector<pt::NodeId>{g.find("sum_1"), g.find("mm_1"), g.find("mm_2")});
  CHECK(g[g.find("relu")].size_bytes == 32u * 256u * 4u);
  CHECK(g[g.find("le")].size_bytes == 32u * 256u);  // bool: one byte each
  CHECK(g[g.find("sum_1")].size_bytes == 4u);       // 0-dim float32

  const auto linear = pt::read_graph(std::string(PT_SAMPLE_DIR) + "/linear_ce.pb", pt::Format::Binary);
  const auto corpus = pt::read_graph(corpus_path("linear_ce.pb"), pt::Format::Binary);
  CHECK(MessageDifferencer::Equals(*linear, *corpus));
}

TEST_CASE("format names and extensions") {
  CHECK(pt::parse_format("pb") == pt::Format::Binary);
  CHECK(pt::parse_format("binary") == pt::Format::Binary);
  CHECK(pt::parse_format("pbtxt") == pt::Format::Text);
  CHECK(pt::parse_format("textproto") == pt::Format::Text);
  CHECK(pt::parse_format("json") == pt::Format::Json);
  CHECK_THROWS_WITH_AS(pt::parse_format("yaml"), "unknown format 'yaml' (expected pb, pbtxt or json)",
                       pt::InputError);
  CHECK(pt::format_from_path("a/b.pb") == pt::Format::Binary);
  CHECK(pt::format_from_path("b.bin") == pt::Format::Binary);
  CHECK(pt::format_from_path("b.pbtxt") == pt::Format::Text);
  CHECK(pt::format_from_path("b.txtpb") == pt::Format::Text);
  CHECK(pt::format_from_path("x.graph.json") == pt::Format::Json);
  CHECK_THROWS_WITH_AS(pt::format_from_path("g.yaml"),
                       "g.yaml: cannot tell the format from the extension '.yaml' (use .pb, .pbtxt or .json, or "
                       "pass --input-format/--output-format)",
                       pt::InputError);
  CHECK(pt::format_name(pt::Format::Binary) == "pb");
  CHECK(pt::format_name(pt::Format::Text) == "pbtxt");
  CHECK(pt::format_name(pt::Format::Json) == "json");
}

TEST_CASE("JSON: 64-bit integers are written as strings and read either way; unknown fields are ignored") {
  pt::test::TempDir dir;
  pt::proto::Graph g;
  g.set_name("g");
  g.set_num_fwd_outputs(1);
  auto* n = g.add_nodes();
  n->set_name("x");
  n->mutable_val()->mutable_tensor()->add_shape(50257);
  const std::string json = pt::serialize_message(g, pt::Format::Json);
  CHECK(json.find("\"num_fwd_outputs\": \"1\"") != std::string::npos);
  CHECK(json.find("\"50257\"") != std::string::npos);

  write_text(dir.file("numbers.json"),
             R"({"name": "g", "num_fwd_outputs": 2, "future_field": {"a": [1, 2]},
                 "nodes": [{"name": "x", "val": {"tensor": {"shape": [3, "4"]}}, "new_node_field": 7}]})");
  const auto read = pt::read_graph(dir.file("numbers.json"), pt::Format::Json);
  CHECK(read->num_fwd_outputs() == 2);
  REQUIRE(read->nodes_size() == 1);
  CHECK(read->nodes(0).val().tensor().shape(0) == 3);
  CHECK(read->nodes(0).val().tensor().shape(1) == 4);
}

TEST_CASE("JSON: float args accept Infinity, -Infinity and NaN strings") {
  pt::test::TempDir dir;
  write_text(dir.file("floats.json"),
             R"({"nodes": [{"name": "f", "args": [{"float": "Infinity"}, {"float": "-Infinity"},
                 {"float": "NaN"}, {"float": 0.5}]}]})");
  const auto g = pt::read_graph(dir.file("floats.json"), pt::Format::Json);
  const auto& args = g->nodes(0).args();
  REQUIRE(args.size() == 4);
  CHECK(std::isinf(args[0].float_()));
  CHECK(args[0].float_() > 0);
  CHECK(std::isinf(args[1].float_()));
  CHECK(args[1].float_() < 0);
  CHECK(std::isnan(args[2].float_()));
  CHECK(args[3].float_() == 0.5);
}

TEST_CASE("JSON: a negative zero keeps its sign, read and written") {
  // protobuf's printer writes -0.0 as the number -0 and its parser reads -0
  // as +0; PyTorch writes scalar_tensor(-0.0) into real graphs.
  pt::test::TempDir dir;
  write_text(dir.file("zeros.json"),
             R"({"nodes": [{"name": "z", "args": [{"float": -0}, {"float": 0}, {"float": -0.0}, {"float": -0.5},
                 {"str": "-0"}, {"float": -0e0}]}]})");
  const auto g = pt::read_graph(dir.file("zeros.json"), pt::Format::Json);
  const auto check = [](const pt::proto::Graph& read) {
    const auto& args = read.nodes(0).args();
    REQUIRE(args.size() == 6);
    CHECK(args[0].float_() == 0);
    CHECK(std::signbit(args[0].float_()));
    CHECK_FALSE(std::signbit(args[1].float_()));
    CHECK(std::signbit(args[2].float_()));
    CHECK(args[3].float_() == -0.5);
    CHECK(args[4].str() == "-0");  // a string, as written
    CHECK(std::signbit(args[5].float_()));
  };
  check(*g);
  pt::write_message(dir.file("back.json"), pt::Format::Json, *g);
  const std::string written = slurp(dir.file("back.json"));
  CHECK(written.find("-0.0") != std::string::npos);
  CHECK(written.find("\"-0\"") != std::string::npos);  // the string, unchanged
  check(*pt::read_graph(dir.file("back.json"), pt::Format::Json));
}

TEST_CASE("JSON: negative zeros are rewritten as decimals outside strings only") {
  CHECK(pt::negative_zeros_as_decimals(R"({"a": [-0, -0.5, 10, -01e3, "x -0 y"]})") ==
        std::optional<std::string>(R"({"a": [-0.0, -0.5, 10, -01e3, "x -0 y"]})"));
  CHECK(pt::negative_zeros_as_decimals(R"({"a": -0})") == std::optional<std::string>(R"({"a": -0.0})"));
  CHECK(pt::negative_zeros_as_decimals(R"({"s": "\"-0", "b": -0e1})") == std::nullopt);
  CHECK(pt::negative_zeros_as_decimals("") == std::nullopt);
}

TEST_CASE("read errors are one line that starts with the path") {
  pt::test::TempDir dir;
  const std::string missing = dir.file("missing.pb");
  CHECK_THROWS_WITH_AS(pt::read_graph(missing, pt::Format::Binary),
                       (missing + ": cannot open: No such file or directory").c_str(), pt::InputError);
  write_text(dir.file("bad.json"), "{\"nodes\": [\n{\"name\": \n");
  try {
    pt::read_graph(dir.file("bad.json"), pt::Format::Json);
    FAIL("no error");
  } catch (const pt::InputError& e) {
    const std::string what = e.what();
    CHECK(what.starts_with(dir.file("bad.json") + ": not a valid JSON partition_tool.proto.Graph: "));
    CHECK(what.find('\n') == std::string::npos);
  }
  write_text(dir.file("bad.pbtxt"), "nodes {\n  name: \"a\"\n  bogus: 1\n}\n");
  CHECK_THROWS_WITH_AS(pt::read_graph(dir.file("bad.pbtxt"), pt::Format::Text),
                       doctest::Contains("bad.pbtxt: not a valid text protobuf partition_tool.proto.Graph: line 3:"),
                       pt::InputError);
}

TEST_CASE("a directory is refused when opened, with the reason") {
  pt::test::TempDir dir;
  std::filesystem::create_directory(dir.file("graph.pb"));
  CHECK_THROWS_WITH_AS(pt::read_graph(dir.file("graph.pb"), pt::Format::Binary),
                       (dir.file("graph.pb") + ": cannot open: Is a directory").c_str(), pt::InputError);
}

TEST_CASE("write_message replaces the target atomically and leaves no temporary file") {
  pt::test::TempDir dir;
  pt::proto::Graph g;
  g.set_name("first");
  const std::string out = dir.file("out.pb");
  pt::write_message(out, pt::Format::Binary, g);
  g.set_name("second");
  pt::write_message(out, pt::Format::Binary, g);
  CHECK(pt::read_graph(out, pt::Format::Binary)->name() == "second");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    CHECK(entry.path().filename() == "out.pb");
    ++files;
  }
  CHECK(files == 1);
  CHECK_THROWS_AS(pt::write_message(dir.file("no/such/dir/out.pb"), pt::Format::Binary, g), pt::InputError);
}

TEST_CASE("a message over protobuf's 2 GiB limit is refused with one line, not written empty") {
  CHECK_NOTHROW(pt::check_message_size(pt::kMaxInputBytes, "Partition"));
  try {
    pt::check_message_size(uint64_t{pt::kMaxInputBytes} + 1, "Partition");
    FAIL("no error");
  } catch (const pt::InputError& e) {
    CHECK(std::string(e.what()) ==
          "cannot write the Partition: its binary encoding would be 2147483648 bytes, above protobuf's limit of "
          "2147483647 (2 GiB) for binary and JSON; write text format instead (.pbtxt)");
  }
}
