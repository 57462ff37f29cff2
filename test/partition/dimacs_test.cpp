// The DIMACS export: our flow network for gpt2_124m and resnet18 has the same
// vertex and arc counts, the same multiset of capacities and the same
// maximum flow as the network PyTorch built (test/corpus/*.flow.dimacs);
// writing and reading back loses nothing, at any capacity a double holds.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/classify.h"
#include "graph/errors.h"
#include "graph/graph_io.h"
#include "graph/validate.h"
#include "partition/ban_options.h"
#include "partition/dimacs.h"
#include "partition/flow_network.h"
#include "partition/min_cut.h"
#include "prepare/prepare.h"
#include "support/reference.h"

namespace {

using namespace pt;

FlowNetwork default_network(const std::string& model) {
  const std::string path = test::corpus_graph_path(model);
  const Graph joint = validate(read_graph(path, format_from_path(path)), path);
  const Settings s;
  const PrepareResult prepared = prepare(joint, s);
  return build_flow_network(prepared.graph, classify(prepared.graph), s, BanOptions::from_settings(s));
}

DimacsNetwork read_text(const std::string& text) {
  std::istringstream in(text);
  return read_dimacs(in, "written");
}

std::vector<Capacity> capacities(const DimacsNetwork& n) {
  std::vector<Capacity> out;
  for (const FlowArc& a : n.arcs) out.push_back(a.capacity);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("our network is PyTorch's: counts, capacities and maximum flow") {
  for (const std::string model : {"gpt2_124m", "resnet18"}) {
    INFO("model " << model);
    std::ifstream file(test::corpus_path(model + ".flow.dimacs"));
    REQUIRE(file);
    const DimacsNetwork theirs = read_dimacs(file, model);
    std::ostringstream text;
    const FlowNetwork net = default_network(model);
    const DimacsCounts counts = write_dimacs(text, net, "test");
    const DimacsNetwork ours = read_text(text.str());

    CHECK(counts.vertices == theirs.vertex_count);
    CHECK(counts.arcs == static_cast<int64_t>(theirs.arcs.size()));
    CHECK(ours.vertex_count == theirs.vertex_count);
    CHECK(ours.arcs.size() == theirs.arcs.size());
    CHECK(capacities(ours) == capacities(theirs));
    const MinCut a = solve_min_cut(ours.vertex_count, ours.arcs, ours.source, ours.sink);
    const MinCut b = solve_min_cut(theirs.vertex_count, theirs.arcs, theirs.source, theirs.sink);
    REQUIRE(a.feasible);
    REQUIRE(b.feasible);
    CHECK(a.value == b.value);
    CHECK(a.value == solve_min_cut(net).value);
    // Isomorphic networks: sink sides of the same size.
    CHECK(std::count(a.sink_side.begin(), a.sink_side.end(), true) ==
          std::count(b.sink_side.begin(), b.sink_side.end(), true));
  }
}

TEST_CASE("write then read: every distinct arc once, infinite as 2^60") {
  FlowNetwork net;
  net.vertex_count = 8;  // vertices 5 and 6 carry no arc and are not written
  net.arcs = {{0, 2, kInfinite}, {2, 3, 7}, {3, 1, kInfinite}, {2, 3, 9}, {0, 4, 1}, {4, 1, 2}, {3, 7, 0}};
  std::ostringstream text;
  const DimacsCounts counts = write_dimacs(text, net, "tiny");
  CHECK(counts.vertices == 6);
  CHECK(counts.arcs == 6);
  CHECK(text.str().find("a 1 3 1152921504606846976\n") != std::string::npos);
  CHECK(text.str().find("a 3 4 9\n") != std::string::npos);  // the last capacity of the repeated arc
  const DimacsNetwork back = read_text(text.str());
  CHECK(back.vertex_count == 6);
  CHECK(back.source == 0);
  CHECK(back.sink == 1);
  REQUIRE(back.arcs.size() == 6);
  CHECK(back.arcs[0].capacity == kInfinite);
  CHECK(solve_min_cut(back.vertex_count, back.arcs, back.source, back.sink).value == 9 + 1);
}

TEST_CASE("capacities past 2^64 are written and read back exactly; infinite as one more than their sum") {
  FlowNetwork net;
  net.vertex_count = 4;
  const double big = std::ldexp(1.0, 200) + std::ldexp(1.0, 150);
  net.arcs = {{0, 2, big}, {2, 3, kInfinite}, {3, 1, 7}};
  std::ostringstream text;
  write_dimacs(text, net, "");
  const std::string big_text = "1606938044258991702789654798301043660808172443277929218048000";
  CHECK(text.str().find("a 1 3 " + big_text + "\n") != std::string::npos);
  const std::string infinite_text = "1606938044258991702789654798301043660808172443277929218048008";  // the sum + 1
  CHECK(text.str().find("c infinite capacity written as " + infinite_text + "\n") != std::string::npos);
  const DimacsNetwork back = read_text(text.str());
  REQUIRE(back.arcs.size() == 3);
  CHECK(back.arcs[0].capacity == big);
  CHECK(back.arcs[1].capacity == kInfinite);
  CHECK(to_string(solve_min_cut(back.vertex_count, back.arcs, back.source, back.sink).value) == "7");
  // 2^60 + 1 is an integer no double holds.
  CHECK_THROWS_WITH_AS(read_text("c infinite capacity written as 1000000000000000000000\np max 3 1\nn 1 s\nn 2 t\n"
                                 "a 1 2 1152921504606846977\n"),
                       "written: line 5: capacity 1152921504606846977 is not exactly a double", InputError);
}

TEST_CASE("malformed DIMACS is refused with the line") {
  CHECK_THROWS_AS(read_text("p max 3 1\nn 1 s\nn 2 t\na 1 9 4\n"), InputError);
  CHECK_THROWS_AS(read_text("p max 3 2\nn 1 s\nn 2 t\na 1 2 4\n"), InputError);
  CHECK_THROWS_AS(read_text("a 1 2 3\n"), InputError);
  CHECK_THROWS_AS(read_text("p max 3 1\nn 1 s\na 1 2 4\n"), InputError);
  CHECK_THROWS_WITH_AS(read_text("p max 3 1\nn 1 s\nn 2 t\nx\n"), "written: line 4: unknown line kind 'x'", InputError);
}
