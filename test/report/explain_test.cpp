// explain on linear_ce: a banned saved node, a recomputed node, a merged
// node, a backward-only node, and an unknown name.
#include <doctest/doctest.h>

#include <sstream>

#include "graph/errors.h"
#include "report/explain.h"
#include "report/linear_ce.h"

namespace {

std::string fact(const pt::Explanation& x, const std::string& label) {
  for (const auto& f : x.facts) {
    if (f.label == label) return f.text;
  }
  return "";
}

pt::Explanation explain(const pt::test::LinearCe& lce, const std::string& name) {
  return pt::explain_node(pt::test::linear_ce_graph(), lce.partitioned, lce.settings, name);
}

}  // namespace

TEST_CASE("explain: a banned node names the rule, its numbers and the setting that lifts it") {
  const pt::test::LinearCe lce(1.1);
  const pt::Explanation x = explain(lce, "amax");
  CHECK(x.status == "saved");
  CHECK(x.summary == "saved by the forward for the backward (131 kB): cannot recompute: reduction op");
  CHECK(fact(x, "ban") ==
        "cannot recompute: reduction op: 4 x its size (131 kB) < its inputs (6.59 GB) [lifted by: "
        "ban_recompute_reductions]");
  CHECK(fact(x, "capacity") ==
        "383804 = trunc(131072 B x 1.1^4) x 2 (not materialized: every user fuses with it) [scaled by: "
        "dist_from_bw_base, dist_from_bw_cap]");
  CHECK(fact(x, "dist_from_bw") == "4");
  CHECK(fact(x, "read by") == "amax -> sub -> sub_1 -> convert_element_type_3 -> convert_element_type_6 (backward)");

  std::ostringstream text;
  pt::write_explanation_text(text, x);
  CHECK(text.str().rfind("amax: saved\n  saved by the forward", 0) == 0);
  CHECK(text.str().find("  ban           cannot recompute: reduction op") != std::string::npos);
}

TEST_CASE("explain: the softmax output is recomputed by default and saved at dist_from_bw_base 1.2") {
  const pt::Explanation recomputed = explain(pt::test::LinearCe(1.1), "convert_element_type_3");
  CHECK(recomputed.status == "recomputed");
  CHECK(recomputed.summary == "recomputed in the backward from mm_default_2, amax, log");
  CHECK(fact(recomputed, "ban") == "none: the cut may recompute it");
  const pt::Explanation saved = explain(pt::test::LinearCe(1.2), "convert_element_type_3");
  CHECK(saved.status == "saved");
  CHECK(saved.summary.find("the minimum cut") != std::string::npos);
  const pt::Explanation mm = explain(pt::test::LinearCe(1.2), "mm_default_2");
  CHECK(mm.status == "forward-only");
}

TEST_CASE("explain: merged, backward-only and unknown nodes") {
  const pt::test::LinearCe lce(1.1);
  const pt::Explanation merged = explain(lce, "ne_1");
  CHECK(merged.status == "merged");
  CHECK(merged.summary.find("merged into ne by CSE") == 0);
  const pt::Explanation bw = explain(lce, "mul_1");
  CHECK(bw.status == "backward-only");
  CHECK(fact(bw, "capacity") == "no X_in -> X_out edge: it is tied to the sink (runs in the backward)");
  CHECK_THROWS_WITH_AS(explain(lce, "convert_element_type_"),
                       (std::string(PT_SAMPLE_DIR) + "/linear_ce.pb: no node named 'convert_element_type_' "
                       "(did you mean 'convert_element_type_2'?)").c_str(),
                       pt::InputError);
}
