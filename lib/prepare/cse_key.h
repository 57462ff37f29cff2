// The identity CSE compares (DESIGN.md 3.2, PyTorch's fx_graph_cse token):
// the full target (overload included), then args and kwargs compared
// structurally after substituting already-merged nodes, leaf types included:
// int 1, float 1.0 and bool true all differ, 0.0 equals -0.0, NaN equals
// nothing. Encoded as one byte string so equal keys mean equal tokens.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace pt {

// Writes node `id`'s key into `out` (replacing its contents; the buffer is
// reused across nodes). `kept_as[n]`: the node that n was merged into (n
// itself when not merged). Returns false when some float arg is NaN: such a
// node never equals another.
bool cse_key(const Graph& g, NodeId id, const std::vector<NodeId>& kept_as, std::string& out);

// The key in two steps, for CSE over a large graph (cse.cpp): the template,
// which reads only node `id` and can be written for many nodes at once on
// other threads, then the merges known so far patched in. Appends the key
// with every node reference as its own id to `out`, and the offset of each
// reference (from the key's first byte) to `ref_at`. False on NaN, as
// cse_key (what it appended is then meaningless).
bool append_key_template(const Graph& g, NodeId id, std::string& out, std::vector<uint32_t>& ref_at);
// Turns a template into cse_key's bytes: each reference r becomes kept_as[r].
void patch_key_refs(char* key, std::span<const uint32_t> ref_at, const std::vector<NodeId>& kept_as);

}  // namespace pt
