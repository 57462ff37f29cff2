// dot on linear_ce: styles, the cut edges, the legend, neighbourhoods and the
// refusal to draw too many nodes.
#include <doctest/doctest.h>

#include <sstream>

#include "graph/errors.h"
#include "report/dot.h"
#include "report/linear_ce.h"

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string dot_of(const pt::test::LinearCe& lce, const std::string& around, int depth, size_t max_nodes = 500) {
  const pt::Graph& g = lce.partitioned.prepared.graph;
  std::ostringstream out;
  pt::write_dot(out, g, lce.partitioned.result, pt::select_dot_nodes(g, around, depth, max_nodes));
  return out.str();
}

std::string id_of(const pt::test::LinearCe& lce, const std::string& name) {
  return "n" + std::to_string(lce.partitioned.prepared.graph.find(name));
}

}  // namespace

TEST_CASE("dot: the cut is drawn as red edges from each saved value into the backward") {
  const pt::test::LinearCe lce(1.1);
  const std::string dot = dot_of(lce, "", 0);
  CHECK(dot.rfind("digraph partition {", 0) == 0);
  CHECK(contains(dot, "subgraph cluster_legend"));
  CHECK(contains(dot, "legend_cut_from -> legend_cut_to [label=\"the cut\", color=red, penwidth=3];"));
  CHECK(contains(dot, id_of(lce, "mm_default_2") + " -> " + id_of(lce, "slice_tensor_1") +
                          " [color=red, penwidth=3, label=\"cut: 3.29 GB\", fontcolor=red];"));
  CHECK(contains(dot, id_of(lce, "amax") + " -> " + id_of(lce, "sub") + " [color=red, penwidth=3, label=\"cut: 131 kB\""));
  // The forward's own edge into the saved matmul is not part of the cut.
  CHECK(contains(dot, id_of(lce, "primals_2") + " -> " + id_of(lce, "mm_default_2") + ";"));
  // Saved, recomputed and banned nodes each have their style.
  CHECK(contains(dot, id_of(lce, "mm_default_2") + " [label=\"mm_default_2\\naten.mm\\n[32768,50264] bfloat16 3.29 GB"
                          "\\nban: not in allowlist\", shape=box, style=\"filled,bold\", fillcolor=\"#f4a261\", "
                          "color=red, penwidth=2];"));
  CHECK(contains(dot, id_of(lce, "convert_element_type_3") + " [label=\"convert_element_type_3\\n"
                          "prims.convert_element_type\\n[32768,50257] bfloat16 3.29 GB\", shape=box, "
                          "style=\"filled,dashed\", fillcolor=\"#a8dadc\"];"));
  CHECK(dot.substr(dot.size() - 2) == "}\n");
}

TEST_CASE("dot: a neighbourhood, with the edges it leaves out counted") {
  const pt::test::LinearCe lce(1.1);
  const std::string dot = dot_of(lce, "amax", 1);
  CHECK(contains(dot, "label=\"linear_ce: 3 nodes within 1 of amax\""));
  CHECK(contains(dot, id_of(lce, "amax") + " [label=\"amax"));
  CHECK(contains(dot, "peripheries=2"));
  CHECK(contains(dot, "(+2 edges not shown)"));
  CHECK_FALSE(contains(dot, id_of(lce, "exp") + " ["));
}

TEST_CASE("dot: more than --max-drawn nodes is refused with a hint") {
  const pt::test::LinearCe lce(1.1);
  const pt::Graph& g = lce.partitioned.prepared.graph;
  CHECK_THROWS_WITH_AS(pt::select_dot_nodes(g, "", 0, 10),
                       (std::string(PT_SAMPLE_DIR) + "/linear_ce.pb: 57 nodes is more than --max-drawn 10 can show "
                                                     "readably; draw one neighbourhood with --around NODE --depth N "
                                                     "(e.g. --around mm_default --depth 2), or raise --max-drawn")
                           .c_str(),
                       pt::InputError);
  CHECK_THROWS_AS(pt::select_dot_nodes(g, "amax", 5, 10), pt::InputError);
  CHECK_THROWS_AS(pt::select_dot_nodes(g, "no_such_node", 1, 10), pt::InputError);
}
