#include "fuzz_pipeline.h"

#include <array>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <google/protobuf/stubs/logging.h>

#include "graph/errors.h"
#include "graph/node_records.h"
#include "graph/parallel_parse.h"
#include "graph/validate.h"
#include "partition/partition_bytes.h"
#include "partition/partition_message.h"
#include "pipeline/pipeline.h"
#include "report/bandwidth_model.h"
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
  options.allow_output_only = true;
  try {
    validate(std::make_shared<proto::Graph>(g), which, options);
  } catch (const InputError& e) {
    throw std::logic_error(std::string("the partition's ") + which + " graph does not validate: " + e.what());
  }
}

// The tool parses binary graphs record by record on several threads
// (graph/parallel_parse.h): it must accept exactly what protobuf's parser
// accepts and build the same message, split into as many chunks as can be.
void check_parallel_parse(std::string_view bytes, const proto::Graph* reference) {
  proto::Graph split;
  const bool ok = parse_graph_binary(bytes, &split, 3, 1);
  if (ok != (reference != nullptr)) throw std::logic_error("parallel parse accepts differently from protobuf");
  if (ok && serialize_message(split, Format::Binary) != serialize_message(*reference, Format::Binary)) {
    throw std::logic_error("parallel parse builds a different graph");
  }
}

// The partition command reads binary graphs as records (graph/
// node_records.h): canonical node records kept as they arrived, others
// re-serialized by protobuf. It must accept exactly what protobuf accepts,
// and every record must be protobuf's serialization of the node it parsed
// (validation then reads the same graph from the message as from the file).
void check_records_parse(std::string_view bytes, const proto::Graph* reference) {
  auto owner = std::make_shared<std::string>(bytes);
  GraphRecords records;
  const bool ok = parse_graph_records(*owner, owner, 3, records, 1);
  if (ok != (reference != nullptr)) throw std::logic_error("the records parse accepts differently from protobuf");
  if (!ok) return;
  if (records.nodes->size() != static_cast<size_t>(reference->nodes_size())) {
    throw std::logic_error("the records parse finds a different number of nodes");
  }
  for (int k = 0; k < reference->nodes_size(); ++k) {
    if (records.nodes->bytes(static_cast<size_t>(k)) != serialize_node(reference->nodes(k))) {
      throw std::logic_error("a node record differs from protobuf's serialization of the node");
    }
  }
  proto::Graph header = *reference;
  header.clear_nodes();
  if (serialize_message(*records.header, Format::Binary) != serialize_message(header, Format::Binary)) {
    throw std::logic_error("the records parse reads the graph's other fields differently");
  }
}

// Large graphs convert their nodes on several threads (validate.cpp): split
// into as many ranges as can be, validation must give the same graph, or the
// same error, as one pass.
void check_parallel_validate(const std::shared_ptr<const proto::Graph>& message, const ValidateOptions& limits) {
  ValidateOptions split = limits;
  split.threads = 3;
  split.min_nodes_per_thread = 1;
  std::string one_error, split_error;
  Graph one, parts;
  try {
    one = validate(message, "fuzz-input", limits);
  } catch (const InputError& e) {
    one_error = e.what();
  }
  try {
    parts = validate(message, "fuzz-input", split);
  } catch (const InputError& e) {
    split_error = e.what();
  }
  if (one_error != split_error) throw std::logic_error("validation on 3 threads fails differently: " + split_error);
  if (one.nodes != parts.nodes || one.users != parts.users || one.primals != parts.primals ||
      one.outputs != parts.outputs || one.static_lifetime != parts.static_lifetime) {
    throw std::logic_error("validation on 3 threads builds a different graph");
  }
}

void run(const uint8_t* data, size_t size, Format format) {
  auto message = std::make_shared<proto::Graph>();
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    parse_message(bytes, format, "fuzz-input", message.get());
  } catch (const InputError&) {
    if (format == Format::Binary) check_parallel_parse(bytes, nullptr), check_records_parse(bytes, nullptr);
    throw;
  }
  if (format == Format::Binary) check_parallel_parse(bytes, message.get()), check_records_parse(bytes, message.get());
  ValidateOptions limits;
  limits.max_nodes = 100'000;
  check_parallel_validate(message, limits);
  const Graph joint = validate(message, "fuzz-input", limits);
  const Settings s = settings_for(data, size);
  const Partitioned p = partition_joint(joint, s);
  // The CLI partitions from the joint graph's own nodes (prepare_consuming):
  // it must give the same partition as partitioning from copies. Here with
  // CSE on two threads (large graphs use them): the same merges too.
  {
    Graph consumed = validate(message, "fuzz-input", limits);
    const Partitioned q = partition_joint_releasing(consumed, s, 2);
    if (q.prepared.merged != p.prepared.merged) throw std::logic_error("CSE on two threads merges differently");
    if (partition_bytes(q.prepared.graph, q.result.classification, q.result.extraction, s) !=
        partition_bytes(p.prepared.graph, p.result.classification, p.result.extraction, s)) {
      throw std::logic_error("partition_joint_releasing (CSE on two threads) differs from partition_joint");
    }
  }

  const proto::Partition out = partition_message(p.prepared.graph, p.result.classification, p.result.extraction, s);
  for (Format f : {Format::Binary, Format::Text, Format::Json}) serialize_message(out, f);
  // The tool writes binary partitions without building the message.
  const std::string written = partition_bytes(p.prepared.graph, p.result.classification, p.result.extraction, s);
  if (written != serialize_message(out, Format::Binary)) {
    throw std::logic_error("partition_bytes differs from the serialized Partition message");
  }
  // The partition command streams the same bytes to its file.
  std::ostringstream streamed;
  write_partition_bytes(streamed, p.prepared.graph, p.result.classification, p.result.extraction, s);
  if (streamed.str() != written) throw std::logic_error("write_partition_bytes differs from partition_bytes");
  // Every report format, from one model (bandwidth model and peak memory
  // included), on the preset with every measured rule (h200: efficiencies,
  // arithmetic floor, cached rereads, attention rates).
  const ReportModel model = build_report({joint, p, s, parse_device("h200"), {}, {}});
  // Large graphs cost the forward pass (and simulate its peak memory) on a
  // second thread: the same estimate and peak. (The report keeps each
  // pass's totals only, PassDetail::Totals, so this one does too.)
  const BandwidthAndPeak two = estimate_bandwidth_and_peak(p.prepared.graph, p.result, s.op_classes,
                                                           parse_device("h200"), {}, 2, nullptr, PassDetail::Totals);
  if (!(two.bandwidth.forward == model.bandwidth.forward) || !(two.bandwidth.backward == model.bandwidth.backward)) {
    throw std::logic_error("the bandwidth model on two threads gives a different estimate");
  }
  if (!(two.memory == model.memory)) throw std::logic_error("the peak memory on two threads differs");
  if (!(fused_peak_memory(p.prepared.graph, p.result, s.op_classes, model.bandwidth) ==
        estimate_bandwidth_and_peak(p.prepared.graph, p.result, s.op_classes, parse_device("h200"), {}, 1).memory)) {
    throw std::logic_error("the peak memory in two halves differs from fused_peak_memory");
  }
  std::ostringstream text, json, md;
  write_report_text(text, model);
  write_report_json(json, model);
  write_report_markdown(md, model);
  check_valid_output(out.forward(), "forward");
  check_valid_output(out.backward(), "backward");
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
