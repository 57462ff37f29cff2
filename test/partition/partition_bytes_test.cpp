// The binary partition written without building the message
// (partition/partition_bytes.h) is byte for byte the serialized Partition
// message, on every corpus graph under settings that move the cut (saved
// values, recomputed nodes, backward placeholders), on the sample graph, and
// on a graph with an empty backward.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "graph/graph_io.h"
#include "partition/partition_bytes.h"
#include "partition/partition_message.h"
#include "pipeline/pipeline.h"
#include "support/reference.h"

namespace {

using namespace pt;

void check_same_bytes(const std::string& path, const std::string& assignment) {
  CAPTURE(path);
  CAPTURE(assignment);
  const LoadedGraph loaded = load_graph_file(path, format_from_path(path));
  Settings s;
  if (!assignment.empty()) s.set_assignment(assignment);
  const Partitioned p = partition_joint(loaded.graph, s);
  const Graph& g = p.prepared.graph;
  const std::string expected =
      serialize_message(partition_message(g, p.result.classification, p.result.extraction, s), Format::Binary);
  const std::string written = partition_bytes(g, p.result.classification, p.result.extraction, s);
  CHECK(written.size() == expected.size());
  CHECK(written == expected);
  // Streamed (what the partition command writes to its file): the same bytes.
  std::ostringstream streamed;
  write_partition_bytes(streamed, g, p.result.classification, p.result.extraction, s);
  CHECK(streamed.str() == expected);
  // It reads back as the same message.
  proto::Partition back;
  REQUIRE(back.ParseFromString(written));
  CHECK(back.forward().nodes_size() > 0);
  CHECK(back.backward().nodes(back.backward().nodes_size() - 1).op() == "output");
}

}  // namespace

TEST_CASE("partition_bytes equals the serialized message on the corpus") {
  for (const char* model : {"linear_ce", "mlp_dynamic", "sac_mlp", "gpt2_dropout_l2", "resnet18", "gpt2_124m"}) {
    for (const char* assignment :
         {"", "dist_from_bw_base=1.2", "aggressive_recomputation=true", "activation_memory_budget=0.3"}) {
      check_same_bytes(test::corpus_graph_path(model), assignment);
    }
  }
}

TEST_CASE("partition_bytes equals the serialized message on the sample and an empty backward") {
  check_same_bytes(std::string(PT_SAMPLE_DIR) + "/tiny_mlp.pbtxt", "");
  check_same_bytes(std::string(PT_TEST_DIR) + "/robustness/empty_backward.json", "");
}
