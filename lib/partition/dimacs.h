// Flow networks in the DIMACS max-flow format, so any solver can be compared
// on the exact network the partitioner solves:
//   c comment
//   p max NODES ARCS
//   n ID s
//   n ID t
//   a FROM TO CAPACITY
// Written as networkx holds PyTorch's network: only vertices that carry an
// arc, numbered from 1 in vertex order, each distinct arc once (the capacity
// of its last occurrence, as nx.DiGraph.add_edge overwrites). Infinite
// capacity is written as 2^60, like the corpus files (or, should finite
// capacities reach 2^60, as one more than their sum), and a comment says
// which number it is.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "partition/capacity.h"
#include "partition/flow_network.h"

namespace pt {

inline constexpr Capacity kDimacsInfinite = 1152921504606846976.0;  // 2^60

struct DimacsNetwork {
  int32_t vertex_count = 0;  // ids 0 .. vertex_count-1 (the file's id minus one)
  int32_t source = 0;
  int32_t sink = 0;
  std::vector<FlowArc> arcs;  // capacity kInfinite where the file has the infinite number
};

struct DimacsCounts {
  int64_t vertices = 0;
  int64_t arcs = 0;
};

DimacsCounts write_dimacs(std::ostream& out, const FlowNetwork& net, const std::string& comment);

// Capacities at or above the infinite number (2^60, or the one a comment
// "infinite capacity written as N" names) read as infinite. A finite
// capacity must be an integer that a double holds exactly (as every weight
// the partitioner writes is). Throws InputError naming `label` and the line.
DimacsNetwork read_dimacs(std::istream& in, const std::string& label);

}  // namespace pt
