// linear_ce (sample_graphs/linear_ce.pb) partitioned under one setting of
// dist_from_bw_base, with its report: 1.1 (PyTorch's default) saves the
// matmul output mm_default_2, 1.2 saves the softmax output
// convert_element_type_3.
#pragma once

#include <string>

#include "pipeline/pipeline.h"
#include "report/report_model.h"

namespace pt::test {

inline const Graph& linear_ce_graph() {
  static const LoadedGraph loaded =
      load_graph_file(std::string(PT_SAMPLE_DIR) + "/linear_ce.pb", Format::Binary);
  return loaded.graph;
}

struct LinearCe {
  Settings settings;
  Partitioned partitioned;
  ReportModel report;

  explicit LinearCe(double dist_from_bw_base, const std::string& device = "h100") {
    settings.dist_from_bw_base = dist_from_bw_base;
    partitioned = partition_joint(linear_ce_graph(), settings);
    report = build_report({linear_ce_graph(), partitioned, settings, parse_device(device), {}, {}});
  }
};

}  // namespace pt::test
