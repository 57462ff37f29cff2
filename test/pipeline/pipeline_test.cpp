// partition_joint_releasing (pipeline/pipeline.h): the same prepared graph
// and partition as partition_joint, built from the joint graph's own nodes
// (prepare_consuming), which are gone afterwards; a report built from the
// JointSummary taken before says the same as one built from the graph.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "graph/graph_io.h"
#include "partition/partition_bytes.h"
#include "pipeline/pipeline.h"
#include "report/report_model.h"
#include "support/reference.h"

using namespace pt;

TEST_CASE("partition_joint_releasing: same partition, joint nodes freed, same report facts") {
  for (const char* model : {"linear_ce", "gpt2_dropout_l2", "resnet18", "gpt2_124m", "mlp_dynamic", "sac_mlp"}) {
    CAPTURE(model);
    const std::string path = test::corpus_graph_path(model);
    Settings s;
    s.set_assignment("activation_memory_budget=0.4");
    const LoadedGraph kept = load_graph_file(path, format_from_path(path));
    LoadedGraph released = load_graph_file(path, format_from_path(path));
    const Partitioned a = partition_joint(kept.graph, s);
    const JointSummary summary(released.graph);
    // On two threads, as large graphs run (CSE and the derived graph split
    // their work), against one.
    const Partitioned b = partition_joint_releasing(released.graph, s, 2);

    CHECK(released.graph.nodes.empty());
    CHECK(released.graph.users.empty());
    CHECK(summary.nodes == kept.graph.size());
    CHECK(summary.name == kept.graph.header->name());
    // The prepared graph built from the joint graph's own nodes is the one
    // built from copies.
    const Graph& pa = a.prepared.graph;
    const Graph& pb = b.prepared.graph;
    REQUIRE(pa.size() == pb.size());
    for (NodeId id = 0; id < pa.size(); ++id) {
      CHECK(pa[id].name == pb[id].name);
      CHECK(pa[id].inputs == pb[id].inputs);
      CHECK(pa[id].positional_inputs == pb[id].positional_inputs);
      CHECK(std::ranges::equal(pa.users[id], pb.users[id]));
      CHECK(pa.record_bytes(id) == pb.record_bytes(id));
    }
    CHECK(pa.outputs == pb.outputs);
    CHECK(pa.primals == pb.primals);
    CHECK(pa.static_lifetime == pb.static_lifetime);
    CHECK(a.prepared.merged == b.prepared.merged);
    CHECK(partition_bytes(a.prepared.graph, a.result.classification, a.result.extraction, s) ==
          partition_bytes(b.prepared.graph, b.result.classification, b.result.extraction, s));

    const ReportModel ra = build_report({kept.graph, a, s, parse_device("h200"), {}, {}});
    const ReportModel rb = build_report({summary, b, s, parse_device("h200"), {}, {}});
    CHECK(ra.nodes_input == rb.nodes_input);
    CHECK(ra.graph == rb.graph);
    CHECK(ra.source == rb.source);
    CHECK(ra.saved_values == rb.saved_values);
    CHECK(ra.bandwidth.backward.seconds == rb.bandwidth.backward.seconds);
  }
}

TEST_CASE("the stages that split their work on large graphs (CSE, extraction) give the same partition on two threads") {
  for (const char* model : {"linear_ce", "gpt2_dropout_l2", "resnet18", "gpt2_124m", "mlp_dynamic", "sac_mlp"}) {
    for (const char* budget : {"1", "0.4"}) {
      CAPTURE(model);
      CAPTURE(budget);
      const std::string path = test::corpus_graph_path(model);
      Settings s;
      s.set_assignment(std::string("activation_memory_budget=") + budget);
      const LoadedGraph loaded = load_graph_file(path, format_from_path(path));
      const Partitioned one = partition_joint(loaded.graph, s, 1);
      const Partitioned two = partition_joint(loaded.graph, s, 2);
      CHECK(two.prepared.merged == one.prepared.merged);
      const Extraction& a = one.result.extraction;
      const Extraction& b = two.result.extraction;
      CHECK(b.forward.keep == a.forward.keep);
      CHECK(b.backward.keep == a.backward.keep);
      CHECK(b.backward.is_input == a.backward.is_input);
      CHECK(b.recomputed == a.recomputed);
      CHECK(partition_bytes(two.prepared.graph, two.result.classification, b, s) ==
            partition_bytes(one.prepared.graph, one.result.classification, a, s));
      CHECK(a.recomputed.size() + a.saved_values.size() > 0);
    }
  }
}
