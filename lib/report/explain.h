// `explain`: why one node of a partition is saved, recomputed, banned,
// forward-only or backward-only, as a chain of facts: where the node runs,
// the ban on recomputing it (and the setting that lifts it), what saving it
// costs in the flow network, its distance from the backward, and which
// backward node reads it.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "settings/settings.h"
#include "pipeline/pipeline.h"

namespace pt {

struct ExplainFact {
  std::string label;  // "ban", "capacity", "dist_from_bw", ...
  std::string text;
};

struct Explanation {
  std::string node;
  std::string status;  // saved, recomputed, forward-only, backward-only, removed, merged, not saved
  std::string summary;
  std::vector<ExplainFact> facts;
};

// Throws InputError when `name` is not a node of the joint graph (naming up
// to five nodes whose names contain it).
Explanation explain_node(const Graph& joint, const Partitioned& p, const Settings& s, std::string_view name);

// Every node of the prepared graph explained in graph order (the output
// node aside), each search's marks kept from node to node: the HTML
// report's explain data, linear in the graph for a typical partition.
void explain_each(const Partitioned& p, const Settings& s, const std::function<void(const Explanation&)>& sink);

// "NAME: STATUS\n  summary\n  label  text\n...", wrapped to 100 columns.
void write_explanation_text(std::ostream& out, const Explanation& x);
// {"node", "status", "summary", "facts": [{"label", "text"}]}.
void write_explanation_json(std::ostream& out, const Explanation& x);

}  // namespace pt
