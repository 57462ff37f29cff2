// The partition as a protobuf message (schemas/graph.proto, Partition): the
// forward graph (primals -> forward outputs + saved values + saved symbols)
// and the backward graph (saved symbols + saved values + tangents ->
// gradients), each a valid graph in the joint graph's schema.
#pragma once

#include "graph/graph.h"
#include "partition/extract.h"
#include "partition/settings.h"

namespace pt {

proto::Partition partition_message(const Graph& g, const Classification& c, const Extraction& e, const Settings& s);

}  // namespace pt
