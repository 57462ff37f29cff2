// partition_joint_releasing (pipeline/pipeline.h): the same prepared graph
// and partition as partition_joint, built from the joint graph's own nodes
// (prepare_consuming), which are gone afterwards; a report built from the
// JointSummary taken before says the same as one built from the graph.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "graph/graph_io.h"
#include "partition/partition_message.h"
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
    const Partitioned b = partition_joint_releasing(released.graph, s);

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
      CHECK(serialize_message(pa.record(id), Format::Binary) == serialize_message(pb.record(id), Format::Binary));
    }
    CHECK(pa.outputs == pb.outputs);
    CHECK(pa.primals == pb.primals);
    CHECK(pa.static_lifetime == pb.static_lifetime);
    CHECK(a.prepared.merged == b.prepared.merged);
    CHECK(serialize_message(*partition_message(a.prepared.graph, a.result.classification, a.result.extraction, s),
                            Format::Binary) ==
          serialize_message(*partition_message(b.prepared.graph, b.result.classification, b.result.extraction, s),
                            Format::Binary));

    const ReportModel ra = build_report({kept.graph, a, s, parse_device("h200"), {}, {}});
    const ReportModel rb = build_report({summary, b, s, parse_device("h200"), {}, {}});
    CHECK(ra.nodes_input == rb.nodes_input);
    CHECK(ra.graph == rb.graph);
    CHECK(ra.source == rb.source);
    CHECK(ra.saved_values == rb.saved_values);
    CHECK(ra.bandwidth.backward.seconds == rb.bandwidth.backward.seconds);
  }
}

TEST_CASE("the partition written from the graph's records parses as the whole Partition message") {
  for (const char* model : {"linear_ce", "gpt2_124m", "mlp_dynamic"}) {
    CAPTURE(model);
    const std::string path = test::corpus_graph_path(model);
    const Settings s;
    const LoadedGraph loaded = load_graph_file(path, format_from_path(path));
    const Partitioned p = partition_joint(loaded.graph, s);
    const auto whole = partition_message(p.prepared.graph, p.result.classification, p.result.extraction, s);
    REQUIRE(whole->forward().nodes_size() > 2);
    REQUIRE(whole->backward().nodes_size() > 2);
    const std::string expected = serialize_message(*whole, Format::Binary);
    for (Format f : {Format::Binary, Format::Text, Format::Json}) {
      CAPTURE(format_name(f));
      const std::string written =
          serialize_partition(p.prepared.graph, p.result.classification, p.result.extraction, s, f);
      // Binary output comes in pieces (more than one batch of nodes on
      // gpt2_124m): it parses as the whole message, byte for byte once
      // serialized again. Text and JSON are the whole message's.
      if (f != Format::Binary) CHECK(written == serialize_message(*whole, f));
      proto::Partition back;
      parse_message(written, f, "written", &back);
      CHECK(serialize_message(back, Format::Binary) == expected);
      // Writing reads the graph's records and changes nothing: a second write is the same.
      CHECK(serialize_partition(p.prepared.graph, p.result.classification, p.result.extraction, s, f) == written);
    }
  }
}
