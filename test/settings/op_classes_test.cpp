// The built-in op classes are PyTorch 2.11's, as recorded in
// test/corpus/op_classes.json: every class holds exactly the packets listed
// there (the compiled-in table is generated from that file by
// tools/gen_op_classes.py; this catches a table edited by hand or a file
// updated without regenerating it).
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "settings/op_classes.h"

namespace {

using namespace pt;

google::protobuf::Struct load_op_classes() {
  std::ifstream in(std::string(PT_TEST_DIR) + "/corpus/op_classes.json");
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  google::protobuf::Struct out;
  REQUIRE(google::protobuf::util::JsonStringToMessage(text.str(), &out).ok());
  return out;
}

std::set<std::string> listed(const google::protobuf::Struct& classes, const std::string& key) {
  const auto it = classes.fields().find(key);
  REQUIRE_MESSAGE(it != classes.fields().end(), "op_classes.json has no " << key);
  std::set<std::string> out;
  for (const auto& v : it->second.list_value().values()) out.insert(v.string_value());
  REQUIRE(!out.empty());
  return out;
}

void check_class(const PacketSet& built, const std::set<std::string>& want, const std::string& name) {
  INFO("class " << name);
  CHECK(built.size() == want.size());
  for (const std::string& packet : want) CHECK_MESSAGE(built.contains(packet), packet << " missing");
}

}  // namespace

TEST_CASE("the built-in op classes equal PyTorch 2.11's recorded ones") {
  const auto classes = load_op_classes();
  const OpClasses ops = OpClasses::pytorch_defaults();
  check_class(ops.recomputable, listed(classes, "recomputable_ops"), "recomputable_ops");
  check_class(ops.random, listed(classes, "random_ops"), "random_ops");
  check_class(ops.view, listed(classes, "view_ops"), "view_ops");
  check_class(ops.compute_intensive, listed(classes, "compute_intensive_ops"), "compute_intensive_ops");
  check_class(ops.cse_rand, listed(classes, "cse_rand_ops"), "cse_rand_ops");
  check_class(ops.pointwise, listed(classes, "pointwise_packets"), "pointwise_packets");
  // The fusible set is derived (recomputable + random), not stored.
  std::set<std::string> fusible = listed(classes, "recomputable_ops");
  for (const std::string& p : listed(classes, "random_ops")) fusible.insert(p);
  CHECK(fusible == listed(classes, "fusible_ops"));
}
