// The partition as a protobuf message (schemas/graph.proto, Partition): the
// forward graph (primals -> forward outputs + saved values + saved symbols)
// and the backward graph (saved symbols + saved values + tangents ->
// gradients), each a valid graph in the joint graph's schema.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/graph_io.h"
#include "partition/extract.h"
#include "settings/settings.h"

namespace pt {

// The partition message over the graph's own records: its forward and
// backward graphs point at g's nodes instead of holding copies (protobuf's
// UnsafeArenaAddAllocated idiom for temporary ownership), so building it
// allocates only the pointer arrays and the few nodes it makes (backward
// placeholders, the two output nodes). A copy of every record cost a fault
// per 4 KiB of fresh memory, a quarter of gpt2_124m's page faults, and
// ~1 GB at 10^6 nodes. Valid while `g` lives; serializing it writes the
// records' cached sizes, so one graph's partition is serialized by one
// thread at a time.
class PartitionView {
 public:
  PartitionView(const Graph& g, const Classification& c, const Extraction& e, const Settings& s);
  PartitionView(const PartitionView&) = delete;
  PartitionView& operator=(const PartitionView&) = delete;
  const proto::Partition& message() const { return message_; }

 private:
  // Gives the borrowed nodes back before message_ is destroyed (declared
  // after it, so destroyed first, also when the constructor throws).
  struct Return {
    proto::Partition* message;
    ~Return();
  };
  proto::Partition message_;
  std::deque<proto::Node> made_;  // the nodes the partition adds; a deque never moves them
  Return return_{&message_};
};

// The same message as a copy on an arena of its own (arena_graph.h).
std::shared_ptr<proto::Partition> partition_message(const Graph& g, const Classification& c, const Extraction& e,
                                                    const Settings& s);

// The partition serialized in `format` (deterministic), from a PartitionView.
// Throws InputError above protobuf's 2 GiB for binary and JSON.
std::string serialize_partition(const Graph& g, const Classification& c, const Extraction& e, const Settings& s,
                                Format format);

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
