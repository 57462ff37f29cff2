// diff and sweep on linear_ce: the flip of dist_from_bw_base between 1.1
// and 1.2 moves mm_default_2 (and the two row statistics) out of the saved
// set and the softmax output convert_element_type_3 in, and costs the forward
// one store and one reload of the 3.29 GB logits.
#include <doctest/doctest.h>

#include "support/relative.h"

#include <sstream>

#include "graph/errors.h"
#include "report/diff.h"
#include "report/linear_ce.h"
#include "report/report_json.h"
#include "report/sweep.h"

namespace {

using Saved = std::vector<std::pair<std::string, uint64_t>>;

}  // namespace

TEST_CASE("diff of dist_from_bw_base 1.1 vs 1.2: what moved and what it costs") {
  const pt::CutSummary a = pt::summarize_cut(pt::test::LinearCe(1.1, "a100").report, "A");
  const pt::CutSummary b = pt::summarize_cut(pt::test::LinearCe(1.2, "a100").report, "B");
  const pt::CutDiff d = pt::diff_cuts(a, b);
  CHECK_FALSE(d.identical);
  CHECK(d.saved_only_a == Saved{{"mm_default_2", 3294101504}, {"amax", 131072}, {"log", 131072}});
  CHECK(d.saved_only_b == Saved{{"convert_element_type_3", 3293642752}});
  CHECK(d.recomputed_only_a ==
        std::vector<std::string>{"slice_tensor_1", "convert_element_type_2", "sub", "sub_1", "convert_element_type_3"});
  CHECK(d.recomputed_only_b.empty());
  CHECK(d.forward.bytes == 6587088896);
  CHECK(d.forward.bytes == pt::test::relative(6.59e9).epsilon(0.05));
  CHECK(d.forward.seconds == pt::test::relative(6587088896 / 1.555e12));
  CHECK(d.backward.bytes == -262144);
  CHECK(d.saved_bytes_delta == 3293642752LL - 3294101504LL - 2 * 131072);

  std::ostringstream text;
  pt::write_diff_text(text, a, b, d, 20);
  CHECK(text.str().find("  forward traffic                   10.2 GB        16.8 GB       +6.59 GB") !=
        std::string::npos);
  CHECK(text.str().find("  forward time (a100)              12.44 ms       16.68 ms       +4.24 ms") !=
        std::string::npos);
}

TEST_CASE("diff of a cut with itself is identical; a saved report reads back the same") {
  const pt::test::LinearCe lce(1.1);
  const pt::CutSummary a = pt::summarize_cut(lce.report, "A");
  CHECK(pt::diff_cuts(a, a).identical);

  std::ostringstream json;
  pt::write_report_json(json, lce.report);
  const pt::CutSummary back = pt::read_report_json(json.str(), "a.json");
  CHECK(back.saved == a.saved);
  CHECK(back.recomputed == a.recomputed);
  CHECK(back.forward.bytes() == a.forward.bytes());
  CHECK(back.backward.seconds == a.backward.seconds);
  CHECK(back.peak_bytes == a.peak_bytes);
  CHECK(pt::diff_cuts(a, back).identical);
  CHECK_THROWS_WITH_AS(pt::read_report_json("{\"graph\": \"g\"}", "x.json"),
                       "x.json: report field 'settings' is missing (expected a report written by partition_tool "
                       "--report-json)",
                       pt::InputError);
  CHECK_THROWS_AS(pt::read_report_json("not json", "x.json"), pt::InputError);
}

TEST_CASE("sweep of dist_from_bw_base over 1.0..1.5 marks the flip between 1.1 and 1.2") {
  const auto values = pt::sweep_values_from_range("1.0:1.5:0.05");
  REQUIRE(values.size() == 11);
  CHECK(values[3] == "1.15");
  const pt::SweepResult r = pt::run_sweep(pt::test::linear_ce_graph(), pt::Settings{}, "dist_from_bw_base", values,
                                          pt::parse_device("h100"));
  REQUIRE(r.rows.size() == 11);
  for (size_t i = 0; i < r.rows.size(); ++i) {
    CAPTURE(r.rows[i].value);
    CHECK(r.rows[i].cut_changed == (r.rows[i].value == "1.15"));
    CHECK(r.rows[i].saved_count == (i < 3 ? 7 : 5));
  }
  CHECK(r.rows[2].forward_bytes == 6793000458ULL + 3371700238ULL);
  CHECK(r.rows[4].forward_bytes == 10086577674ULL + 6665211918ULL);

  std::ostringstream csv;
  pt::write_sweep_csv(csv, r);
  CHECK(csv.str().rfind("dist_from_bw_base,cut_changed,saved_count,saved_bytes,recomputed_count,forward_bytes,"
                        "forward_seconds,backward_bytes,backward_seconds,peak_bytes,peak_at,recomputed_flops,step_seconds,"
                        "error\n1,false,7,",
                        0) == 0);
  CHECK(csv.str().find("\n1.15,true,5,") != std::string::npos);
}

TEST_CASE("sweep: cse re-prepares, booleans take --values, bad keys and values fail before any work") {
  const pt::SweepResult r = pt::run_sweep(pt::test::linear_ce_graph(), pt::Settings{}, "cse", {"true", "false"},
                                          pt::parse_device("h100"));
  REQUIRE(r.rows.size() == 2);
  CHECK(r.rows[0].error.empty());
  CHECK_THROWS_AS(pt::run_sweep(pt::test::linear_ce_graph(), pt::Settings{}, "recomputable_ops", {"aten.mm"},
                                pt::parse_device("h100")),
                  pt::SettingsError);
  CHECK_THROWS_AS(pt::run_sweep(pt::test::linear_ce_graph(), pt::Settings{}, "dist_from_bw_base", {"1.1", "x"},
                                pt::parse_device("h100")),
                  pt::SettingsError);
  CHECK_THROWS_AS(pt::sweep_values_from_range("1.5:1.0:0.1"), pt::SettingsError);
  CHECK_THROWS_AS(pt::sweep_values_from_range("1:2"), pt::SettingsError);
  CHECK(pt::sweep_values_from_range("50%:70%:10%") == std::vector<std::string>{"50%", "60%", "70%"});
  CHECK_THROWS_AS(pt::sweep_values_from_range("50%:70:10%"), pt::SettingsError);
  CHECK(pt::sweep_values_from_list("0.1, 0.5,1") == std::vector<std::string>{"0.1", "0.5", "1"});
}

TEST_CASE("sweep: a value that cannot be computed marks its row; the other rows go on") {
  // 1e300 makes a weight overflow a double (an InputError for that value);
  // 1.9 is steep, its cut exact in wide integers.
  const pt::SweepResult r = pt::run_sweep(pt::test::linear_ce_graph(), pt::Settings{}, "dist_from_bw_base",
                                          {"1.1", "1e300", "1.9"}, pt::parse_device("h100"));
  REQUIRE(r.rows.size() == 3);
  CHECK(r.rows[0].error.empty());
  CHECK(r.rows[0].saved_count == 7);
  CHECK(r.rows[1].value == "1e300");
  CHECK(r.rows[1].error.find("overflows a double") != std::string::npos);
  CHECK(r.rows[2].error.empty());
  CHECK(r.rows[2].saved_count > 0);
  std::ostringstream text, json;
  pt::write_sweep_text(text, r);
  pt::write_sweep_json(json, r);
  CHECK(text.str().find("not computed: ") != std::string::npos);
  CHECK(json.str().find("\"error\": \"") != std::string::npos);
}
