// The partition as a protobuf message (schemas/graph.proto, Partition): the
// forward graph (primals -> forward outputs + saved values + saved symbols)
// and the backward graph (saved symbols + saved values + tangents ->
// gradients), each a valid graph in the joint graph's schema.
#pragma once

#include <memory>
#include <ostream>
#include <vector>

#include "graph/graph.h"
#include "partition/extract.h"
#include "settings/settings.h"

namespace pt {

// On an arena of its own (arena_graph.h): the joint graph's nodes are
// copied into it, one allocation per large block rather than per string.
std::shared_ptr<proto::Partition> partition_message(const Graph& g, const Classification& c, const Extraction& e,
                                                    const Settings& s);

// The partition in binary protobuf, written to `out` as a sequence of
// Partition messages: the skeleton, then pieces of a thousand nodes each.
// Binary protobuf merges concatenated messages (repeated fields append), so
// the bytes parse as partition_message's message, and the whole message
// never exists at once (at 10^6 nodes a copy of the joint graph's nodes,
// ~1 GB). Deterministic. Throws InputError above protobuf's 2 GiB.
void write_partition_binary(std::ostream& out, const Graph& g, const Classification& c, const Extraction& e,
                            const Settings& s);

// The parts partition_message assembles.
//
// Which nodes each graph holds, in order: the forward is forward_nodes (the
// joint graph's nodes as they are) then an output node of forward_outputs;
// the backward is a placeholder for each of backward_inputs, then
// backward_nodes as they are, then an output node of backward_outputs.
struct PartitionLayout {
  std::vector<NodeId> forward_nodes, forward_outputs;
  std::vector<NodeId> backward_inputs, backward_nodes, backward_outputs;
};
PartitionLayout partition_layout(const Graph& g, const Classification& c, const Extraction& e);

// The Partition message without any node: graph names, metadata, output
// counts, saved and recomputed names, settings.
proto::Partition partition_skeleton(const Graph& g, const Classification& c, const Extraction& e,
                                    const Settings& s);

// The backward's placeholder for a value the forward computed.
proto::Node placeholder_node(const proto::Node& original);

// The output node returning `values` (kNoNode: None).
proto::Node output_node(const Graph& g, const std::vector<NodeId>& values);

}  // namespace pt
