// The partition as a protobuf message (schemas/graph.proto, Partition): the
// forward graph (primals -> forward outputs + saved values + saved symbols)
// and the backward graph (saved symbols + saved values + tangents ->
// gradients), each a valid graph in the joint graph's schema.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "graph/graph_io.h"
#include "partition/extract.h"
#include "settings/settings.h"

namespace pt {

// The partition message with every node decoded from g's records, on an
// arena of its own (arena_graph.h): for text and JSON output, and for tests.
std::shared_ptr<proto::Partition> partition_message(const Graph& g, const Classification& c, const Extraction& e,
                                                    const Settings& s);

// The partition serialized in `format` (deterministic). Binary output is
// written in pieces that parse as the one message partition_message builds
// (partition_chunks.h), without a decoded copy of every node. Throws
// InputError above protobuf's 2 GiB for binary and JSON.
std::string serialize_partition(const Graph& g, const Classification& c, const Extraction& e, const Settings& s,
                                Format format);
// The same bytes passed to `write` in pieces: binary output about 32 KiB
// at a time through one reused buffer (the whole output in one string cost
// a fresh page per 4 KiB, a tenth of gpt2_l96's run on the 2-core VM),
// text and JSON whole.
void write_partition(const Graph& g, const Classification& c, const Extraction& e, const Settings& s, Format format,
                     const std::function<void(std::string_view)>& write);

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
