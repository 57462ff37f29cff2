// The JSON report: every documented field is present with its JSON type, the
// old field names are kept, settings are typed, and the bandwidth numbers are
// the model's.
#include <doctest/doctest.h>

#include <sstream>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "report/linear_ce.h"
#include "report/report_json.h"

namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

Struct report_json(const pt::ReportModel& m) {
  std::ostringstream out;
  pt::write_report_json(out, m);
  Struct root;
  REQUIRE(google::protobuf::util::JsonStringToMessage(out.str(), &root).ok());
  return root;
}

const Value& at(const Struct& s, const std::string& key) {
  const auto it = s.fields().find(key);
  REQUIRE_MESSAGE(it != s.fields().end(), "missing field " << key);
  return it->second;
}

void check_kind(const Struct& s, const std::string& key, Value::KindCase kind) {
  CAPTURE(key);
  CHECK(at(s, key).kind_case() == kind);
}

}  // namespace

TEST_CASE("JSON report: every field is present and typed") {
  const pt::test::LinearCe lce(1.1);
  const Struct root = report_json(lce.report);
  using K = Value::KindCase;
  for (const char* key : {"graph", "source", "cut_value_exact", "budget_stage"}) check_kind(root, key, K::kStringValue);
  for (const char* key : {"schema_version", "saved_bytes", "cut_value"}) check_kind(root, key, K::kNumberValue);
  for (const char* key : {"default_partition"}) check_kind(root, key, K::kBoolValue);
  for (const char* key : {"saved_values", "saved_sym_nodes", "saved", "recomputed", "recomputed_by_op", "dropped",
                          "bans_by_reason", "solves", "settings_changed"}) {
    check_kind(root, key, K::kListValue);
  }
  for (const char* key : {"nodes", "extremes", "banned", "must_save_tags", "flow_network", "settings", "bandwidth",
                          "memory", "timings"}) {
    check_kind(root, key, K::kStructValue);
  }
  const Struct& nodes = at(root, "nodes").struct_value();
  for (const char* key : {"input", "after_prepare", "dead", "cse_merged"}) check_kind(nodes, key, K::kNumberValue);

  const auto& saved = at(root, "saved").list_value();
  REQUIRE(saved.values_size() == 7);
  const Struct& first = saved.values(0).struct_value();
  for (const char* key : {"name", "dtype", "module_path", "reason", "reason_code", "setting"}) {
    check_kind(first, key, K::kStringValue);
  }
  check_kind(first, "bytes", K::kNumberValue);
  check_kind(first, "shape", K::kListValue);

  const Struct& bandwidth = at(root, "bandwidth").struct_value();
  const Struct& device = at(bandwidth, "device").struct_value();
  CHECK(at(device, "name").string_value() == "h100");
  CHECK(at(device, "bytes_per_second").number_value() == 3.35e12);
  for (const char* pass : {"forward", "backward"}) {
    const Struct& p = at(bandwidth, pass).struct_value();
    for (const char* key : {"bytes_loaded", "bytes_stored", "flops", "seconds", "kernels"}) check_kind(p, key, K::kNumberValue);
  }
  const Struct& fw = at(bandwidth, "forward").struct_value();
  CHECK(at(fw, "bytes_loaded").number_value() == 6793000458.0);
  CHECK(at(fw, "bytes_stored").number_value() == 3371700238.0);

  const Struct& memory = at(root, "memory").struct_value();
  for (const char* key : {"peak_bytes", "saved_bytes", "forward_peak_bytes", "backward_peak_bytes", "input_bytes"}) {
    check_kind(memory, key, K::kNumberValue);
  }
  check_kind(memory, "peak_at", K::kStringValue);
  check_kind(memory, "peak_pass", K::kStringValue);
  // Every value live at the peak, largest first, summing to the peak.
  const auto& live = at(memory, "live_at_peak").list_value();
  REQUIRE(live.values_size() > 0);
  double sum = 0, previous = 1e300;
  for (const auto& v : live.values()) {
    const Struct& row = v.struct_value();
    for (const char* key : {"name", "category", "reason", "reason_code", "read_last_by"}) check_kind(row, key, K::kStringValue);
    const double bytes = at(row, "bytes").number_value();
    CHECK(bytes <= previous);
    previous = bytes;
    sum += bytes;
  }
  CHECK(sum == at(memory, "peak_bytes").number_value());
}

TEST_CASE("JSON report: settings are typed, changed ones listed") {
  const pt::test::LinearCe lce(1.2);
  const Struct root = report_json(lce.report);
  const Struct& settings = at(root, "settings").struct_value();
  CHECK(at(settings, "cse").kind_case() == Value::kBoolValue);
  CHECK(at(settings, "cse").bool_value() == true);
  CHECK(at(settings, "dist_from_bw_base").kind_case() == Value::kNumberValue);
  CHECK(at(settings, "dist_from_bw_base").number_value() == 1.2);
  CHECK(at(settings, "max_dist_from_bw").number_value() == 1000);
  CHECK(at(settings, "activation_memory_budget_solver").string_value() == "dp");
  const auto& changed = at(root, "settings_changed").list_value();
  REQUIRE(changed.values_size() == 1);
  CHECK(changed.values(0).string_value() == "dist_from_bw_base");
}

TEST_CASE("JSON report: linear_ce's saved values, reasons and cut") {
  const pt::test::LinearCe lce(1.1);
  const Struct root = report_json(lce.report);
  std::vector<std::string> names;
  for (const auto& v : at(root, "saved_values").list_value().values()) names.push_back(v.string_value());
  CHECK(names == std::vector<std::string>{"primals_1", "primals_2", "primals_3", "mm_default_2", "amax", "log",
                                          "convert_element_type_4"});
  const Struct& mm = at(root, "saved").list_value().values(3).struct_value();
  CHECK(at(mm, "name").string_value() == "mm_default_2");
  CHECK(at(mm, "bytes").number_value() == 3294101504.0);
  CHECK(at(mm, "dtype").string_value() == "bfloat16");
  CHECK(at(mm, "module_path").string_value() == "L['lin']");
  CHECK(at(mm, "reason_code").string_value() == "banned");
  CHECK(at(mm, "setting").string_value() == "ban_recompute_not_in_allowlist");
  CHECK(at(root, "cut_value").number_value() == 5892087644.0);
  CHECK(at(root, "cut_value_exact").string_value() == "5892087644");
  CHECK(at(at(root, "banned").struct_value(), "amax").string_value() == "cannot recompute: reduction op");
}
