// Parsing a binary Graph on several cores. A serialized Graph is mostly its
// repeated `nodes` field, one length-delimited record per node; the records
// are found by a scan of the top level (tags and lengths only), then parsed
// into the graph's arena by up to `threads` threads at once (protobuf's
// arena allocates from several threads safely). The other fields are parsed
// as usual. The result is the message ParseFromCodedStream builds.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "graph/schema.h"

namespace pt {

// False when `data` is not a valid binary Graph (the same inputs
// ParseFromCodedStream rejects, with its recursion limit of 64). A thread
// gets at least `min_bytes_per_thread` bytes of input (4 MiB: ~25k nodes);
// below two threads' worth the message is parsed by protobuf whole, without
// the scan. A second thread (and the malloc arena it brings) cost
// gpt2_124m's 2,400-node parse more than it saved in a fresh process, while
// a 10^6-node parse went from 2.2-2.9 s to 1.6-1.8 s on two cores. Tests and
// the fuzzer lower it to split small graphs.
// The node records of a serialized Graph (views into `bytes`), and the bytes
// of its other fields in their order, which protobuf parses as the rest of
// the message (repeated occurrences merge as they would in the whole).
// False when the top level is malformed.
bool split_graph_records(std::string_view bytes, std::vector<std::string_view>& nodes, std::string& rest);

bool parse_graph_binary(std::string_view data, proto::Graph* graph, unsigned threads,
                        size_t min_bytes_per_thread = size_t{4} << 20);

}  // namespace pt
