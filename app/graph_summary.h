// What `inspect` reports about a validated graph (and what the main command
// prints before partitioning): node counts by op kind, target packet and
// partitioner tag, graph inputs and outputs by kind, tensor bytes, the
// largest tensors, and validation notes. Computed once, printed as text for
// people or as JSON for scripts.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace pt::app {

struct CountRow {
  std::string name;
  int64_t count = 0;
  uint64_t bytes = 0;  // tensor bytes of the counted nodes
};

struct TensorRow {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
  uint64_t bytes = 0;
  std::string module_path;
};

struct GraphSummary {
  std::string source;  // file path
  std::string format;  // pb, pbtxt, json
  std::string name;    // Graph.name
  std::map<std::string, std::string> metadata;
  int64_t nodes = 0;
  size_t top = 0;  // rows shown in the top-N lists; 0 = all

  std::vector<CountRow> by_op;      // placeholder, call_function, get_attr, output
  std::vector<CountRow> by_packet;  // call_function targets by packet, most frequent first (top N)
  size_t packets_total = 0;         // distinct packets, shown or not
  std::vector<CountRow> by_tag;     // is_forward, is_backward, must_be_in_*, untagged
  std::vector<CountRow> by_input;   // primal, tangent, forward seed, backward seed
  CountRow parameters;              // primals in static_lifetime_input_indices
  int64_t forward_outputs = 0;
  int64_t gradients = 0;       // outputs after the forward ones
  int64_t none_gradients = 0;  // of which none / constants

  int64_t tensor_values = 0;   // nodes whose value is a tensor
  uint64_t tensor_bytes = 0;   // their total size
  std::vector<TensorRow> largest;  // largest tensors (top N), largest first

  std::vector<std::string> notes;  // validation observations that are not errors
};

GraphSummary summarize(const Graph& g, const std::string& format, size_t top);

void print_summary_text(std::ostream& out, const GraphSummary& s);
void print_summary_json(std::ostream& out, const GraphSummary& s);

}  // namespace pt::app
