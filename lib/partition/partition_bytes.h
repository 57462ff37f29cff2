// The partition in protobuf's binary format, written without building the
// Partition message: the forward and backward graphs are mostly the joint
// graph's own nodes, and copying each of them into a new message (a heap
// allocation per string, list and tensor) cost more time and memory than
// everything before it on large graphs (10^6 nodes: +1.7 GB, twice the time
// of parse, validate and prepare together). Here the joint graph's nodes are
// serialized where they are; the few nodes the partition makes (backward
// placeholders, the two output nodes) and the small fields come from
// partition_message's own code.
//
// The bytes equal serialize_message(partition_message(g, c, e, s),
// Format::Binary) exactly (deterministic serialization: fields in number
// order, map entries sorted by key); test/partition/partition_bytes_test.cpp
// and the fuzzers check it.
#pragma once

#include <ostream>
#include <string>

#include "graph/graph.h"
#include "partition/extract.h"
#include "partition/settings.h"

namespace pt {

std::string partition_bytes(const Graph& g, const Classification& c, const Extraction& e, const Settings& s);

// The same bytes streamed to `out` in 64 KiB pieces, never one string (at
// 10^6 nodes the partition is ~0.2 GB, on top of the graph at the run's peak).
void write_partition_bytes(std::ostream& out, const Graph& g, const Classification& c, const Extraction& e,
                           const Settings& s);

}  // namespace pt
