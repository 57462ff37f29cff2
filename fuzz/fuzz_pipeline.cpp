#include "fuzz_pipeline.h"

#include <array>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <google/protobuf/stubs/logging.h>

#include "graph/errors.h"
#include "graph/validate.h"
#include "partition/partition_message.h"
#include "pipeline/pipeline.h"
#include "estimate/bandwidth_model.h"
#include "report/report_json.h"
#include "report/report_markdown.h"
#include "report/report_model.h"
#include "report/report_text.h"

namespace pt::fuzz {

namespace {

// Settings variants, picked by a hash of the input so that a crash
// reproduces from its file alone: the default, and the corpus settings that
// reach other code (views, aggressive bans, no CSE, the budget cascade with
// each knapsack solver but ILP, which is slow).
constexpr std::array<std::string_view, 6> kVariants = {
    "",
    "recompute_views=true",
    "aggressive_recomputation=true",
    "cse=false",
    "activation_memory_budget=0.5",
    "activation_memory_budget=0.1;activation_memory_budget_solver=greedy",
};

Settings settings_for(const uint8_t* data, size_t size) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  Settings s;
  std::string_view spec = kVariants[h % kVariants.size()];
  while (!spec.empty()) {
    const size_t end = spec.find(';');
    s.set_assignment(spec.substr(0, end));
    spec = end == std::string_view::npos ? std::string_view() : spec.substr(end + 1);
  }
  return s;
}

// A partitioned graph the tool writes must itself be a valid graph (one of
// only the output node included: an empty backward).
void check_valid_output(const proto::Graph& g, const char* which) {
  ValidateOptions options;
  options.partition_graph = true;
  try {
    validate(std::make_shared<proto::Graph>(g), which, options);
  } catch (const InputError& e) {
    throw std::logic_error(std::string("the partition's ") + which + " graph does not validate: " + e.what());
  }
}

// Serialized in `format`, the message must parse back to the same message.
void check_round_trip(const proto::Partition& out, Format format) {
  const std::string bytes = serialize_message(out, format);
  proto::Partition back;
  parse_message(bytes, format, "fuzz-output", &back);
  if (serialize_message(back, Format::Binary) != serialize_message(out, Format::Binary)) {
    throw std::logic_error(std::string("the partition written as ") + std::string(format_name(format)) +
                           " parses back differently");
  }
}

void run(const uint8_t* data, size_t size, Format format) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The loader's own parse (graph_io.h), as the command line reads a file.
  const std::shared_ptr<const proto::Graph> message = parse_graph(bytes, format, "fuzz-input");
  ValidateOptions limits;
  limits.max_nodes = 100'000;
  const Graph joint = validate(message, "fuzz-input", limits);
  const Settings s = settings_for(data, size);
  const Partitioned p = partition_joint(joint, s);
  // The CLI partitions from the joint graph's own nodes (prepare_consuming):
  // it must give the same partition as partitioning from copies.
  const auto out = partition_message(p.prepared.graph, p.result.classification, p.result.extraction, s);
  {
    Graph consumed = validate(message, "fuzz-input", limits);
    const Partitioned q = partition_joint_releasing(consumed, s);
    if (q.prepared.merged != p.prepared.merged) throw std::logic_error("prepare_consuming merges differently");
    const auto released = partition_message(q.prepared.graph, q.result.classification, q.result.extraction, s);
    if (serialize_message(*released, Format::Binary) != serialize_message(*out, Format::Binary)) {
      throw std::logic_error("partition_joint_releasing differs from partition_joint");
    }
  }
  for (Format f : {Format::Binary, Format::Text, Format::Json}) check_round_trip(*out, f);
  // The command line writes binary partitions in pieces: they parse as the whole message.
  {
    proto::Partition back;
    parse_message(serialize_partition(p.prepared.graph, p.result.classification, p.result.extraction, s,
                                      Format::Binary),
                  Format::Binary, "fuzz-output", &back);
    if (serialize_message(back, Format::Binary) != serialize_message(*out, Format::Binary)) {
      throw std::logic_error("the partition written in pieces differs from the whole message");
    }
  }
  // Every report format, from one model (bandwidth model and peak memory
  // included), on the preset with every measured rule (h200: efficiencies,
  // arithmetic floor, cached rereads, attention rates).
  const ReportModel model = build_report({joint, p, s, parse_device("h200"), {}, {}});
  const PeakMemory peak = fused_peak_memory(p.prepared.graph, p.result, s.op_classes, model.bandwidth);
  if (!(peak == estimate_bandwidth_and_peak(p.prepared.graph, p.result, s.op_classes, parse_device("h200"), {}).memory)) {
    throw std::logic_error("the peak memory in two halves differs from fused_peak_memory");
  }
  // The peak is bookkeeping over the graph's own values: never above all of
  // them together (twice, for padding). A buffer freed more than it was
  // allocated wraps the unsigned total around to about 1.8e19 bytes.
  uint64_t all_values = 0;
  for (NodeId id = 0; id < p.prepared.graph.size(); ++id) all_values += p.prepared.graph[id].size_bytes;
  if (peak.peak_bytes > 2 * all_values + (uint64_t{1} << 20)) {
    throw std::logic_error("the peak memory exceeds every value's bytes together: a buffer freed twice");
  }
  std::ostringstream text, json, md;
  write_report_text(text, model);
  write_report_json(json, model);
  write_report_markdown(md, model);
  check_valid_output(out->forward(), "forward");
  check_valid_output(out->backward(), "backward");
}

}  // namespace

void run_pipeline(const uint8_t* data, size_t size, Format format) {
  try {
    run(data, size, format);
  } catch (const InputError&) {
  } catch (const SettingsError&) {
  } catch (const InfeasibleError&) {
  }
}

}  // namespace pt::fuzz

// Called once by libFuzzer before the first input. Protobuf logs parse
// problems (bad UTF-8, ...) to stderr; the typed error says the same, so keep
// the fuzzer's output to findings.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}
