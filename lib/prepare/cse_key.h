// The identity CSE compares (docs/design.md 3.2, PyTorch's fx_graph_cse token):
// the full target (overload included), then args and kwargs compared
// structurally after substituting already-merged nodes, leaf types included:
// int 1, float 1.0 and bool true all differ, 0.0 equals -0.0, NaN equals
// nothing. Encoded as one byte string so equal keys mean equal tokens.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "node_records.pb.h"

namespace pt {

// Writes node `id`'s key into `out` (replacing its contents; the buffer is
// reused across nodes). `kept_as[n]`: the node that n was merged into (n
// itself when not merged). Returns false when some float arg is NaN: such a
// node never equals another.
bool cse_key(const Graph& g, NodeId id, const std::vector<NodeId>& kept_as, std::string& out);
// Where cse_key reads a node's record: its bytes, and its call decoded
// (node_records.proto's NodeCall, the value and tags left undecoded).
struct CseKeyScratch {
  std::string bytes;
  proto::NodeCall call;
};
// The same, through `scratch`: a caller keying many nodes reuses one
// message and most of its allocations (a fresh message a node was a third
// of CSE's instructions on gpt2_124m).
bool cse_key(const Graph& g, NodeId id, const std::vector<NodeId>& kept_as, std::string& out, CseKeyScratch& scratch);

}  // namespace pt
