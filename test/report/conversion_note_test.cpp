// The report's note on cuDNN's layout conversions (report/report_model.h,
// estimate/nchw_conversions.h): the milliseconds they add where Inductor
// keeps 16-bit convolutions NCHW, and nothing where it does not.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>

#include "pipeline/pipeline.h"
#include "report/graph_builder.h"
#include "report/report_json.h"
#include "report/report_model.h"

namespace {

// x [8, 96, 16, 16] bf16 NCHW -> conv (weight `w`, `groups`; stride 1,
// padding 1) -> y.
pt::Graph conv(const std::vector<int64_t>& w, int groups) {
  const std::string ones = "args { list { items { int: 1 } items { int: 1 } } } ";
  const std::string zeros = "args { list { items { int: 0 } items { int: 0 } } } ";
  pt::test::GraphBuilder b;
  b.input("x", {8, 96, 16, 16}, "bfloat16");
  b.input("w", w, "bfloat16");
  b.op("y", "aten.convolution.default", {"x", "w"}, {8, 96, 16, 16}, "bfloat16", {},
       "args { none: true } " + ones + ones + ones + "args { bool: false } " + zeros + "args { int: " +
           std::to_string(groups) + " }");
  return b.build({"y"});
}

// A report with what it views (node names) kept alive beside it.
struct Reported {
  pt::Graph graph;
  pt::Settings settings;
  pt::Partitioned partitioned;
  pt::ReportModel report;
  Reported(pt::Graph g, const std::string& device)
      : graph(std::move(g)), partitioned(pt::partition_joint(graph, settings)),
        report(pt::build_report({graph, partitioned, settings, pt::parse_device(device), {}, {}})) {}
};

std::vector<std::string> warnings_of(pt::Graph g, const std::string& device = "h100") {
  return Reported(std::move(g), device).report.warnings;
}

bool names_conversions(const std::vector<std::string>& w) {
  return std::any_of(w.begin(), w.end(), [](const std::string& t) {
    return t.find("NCHW") != std::string::npos && t.find(" ms of the predicted step") != std::string::npos;
  });
}

}  // namespace

TEST_CASE("The report names the time of the layout conversions around convolutions kept NCHW") {
  CHECK(names_conversions(warnings_of(conv({96, 2, 3, 3}, 48))));   // grouped 3x3: kept NCHW, converted
  CHECK_FALSE(names_conversions(warnings_of(conv({96, 96, 1, 1}, 1))));  // 1x1: a GEMM on NCHW tensors
  CHECK_FALSE(names_conversions(warnings_of(conv({96, 96, 3, 3}, 1))));  // laid out channels-last
  CHECK_FALSE(names_conversions(warnings_of(conv({96, 2, 3, 3}, 48), "a100")));  // not measured there
}

TEST_CASE("The JSON report gives the conversions' seconds per pass, part of the pass's seconds") {
  const Reported r(conv({96, 2, 3, 3}, 48), "h100");
  const double s = r.report.bandwidth.forward.conversion_seconds;
  CHECK(s > 0);
  CHECK(s < r.report.bandwidth.forward.seconds);
  std::ostringstream json;
  pt::write_report_json(json, r.report);
  CHECK(json.str().find("\"layout_conversion_seconds\": ") != std::string::npos);
  CHECK(Reported(conv({96, 96, 1, 1}, 1), "h100").report.bandwidth.forward.conversion_seconds == 0);
}
