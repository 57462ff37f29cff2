// partition_joint_releasing (pipeline/pipeline.h): the same partition as
// partition_joint, the joint graph's nodes freed, and a report built from
// the JointSummary taken before says the same as one built from the graph.
#include <doctest/doctest.h>

#include <string>

#include "graph/graph_io.h"
#include "partition/partition_bytes.h"
#include "pipeline/pipeline.h"
#include "report/report_model.h"
#include "support/reference.h"

using namespace pt;

TEST_CASE("partition_joint_releasing: same partition, joint nodes freed, same report facts") {
  for (const char* model : {"linear_ce", "gpt2_dropout_l2", "resnet18"}) {
    CAPTURE(model);
    const std::string path = test::corpus_graph_path(model);
    Settings s;
    s.set_assignment("activation_memory_budget=0.4");
    const LoadedGraph kept = load_graph_file(path, format_from_path(path));
    LoadedGraph released = load_graph_file(path, format_from_path(path));
    const Partitioned a = partition_joint(kept.graph, s);
    const JointSummary summary(released.graph);
    const Partitioned b = partition_joint_releasing(released.graph, s);

    CHECK(released.graph.nodes.empty());
    CHECK(released.graph.users.empty());
    CHECK(summary.nodes == kept.graph.size());
    CHECK(summary.name == kept.graph.message->name());
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
