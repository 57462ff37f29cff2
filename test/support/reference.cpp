#include "support/reference.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <google/protobuf/util/json_util.h>

namespace pt::test {

ref::Reference load_reference(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream buf;
  buf << in.rdbuf();
  ref::Reference out;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto status = google::protobuf::util::JsonStringToMessage(buf.str(), &out, options);
  if (!status.ok()) throw std::runtime_error(path + ": " + std::string(status.message()));
  return out;
}

Settings settings_of(const ref::Run& run) {
  Settings s;
  // PyTorch 2.11's own choice, random seeds included: its recorded
  // decisions may recompute them under a memory budget.
  s.ban_recompute_rng_seeds = false;
  for (const auto& [key, value] : run.overrides().fields()) {
    std::string name = key;
    if (name == "_dist_base") name = "dist_from_bw_base";
    if (name == "_dist_cap") name = "dist_from_bw_cap";
    std::string text;
    if (value.has_bool_value()) text = value.bool_value() ? "true" : "false";
    else if (value.has_number_value()) {
      std::ostringstream os;
      os.precision(17);
      os << value.number_value();
      text = os.str();
    } else {
      text = value.string_value();
    }
    s.set(name, text);
  }
  return s;
}

std::string corpus_path(const std::string& relative) {
  // PT_CORPUS_DIR points the parity tests at another corpus laid out the same way.
  const char* dir = std::getenv("PT_CORPUS_DIR");
  return (dir && *dir ? std::string(dir) : std::string(PT_TEST_DIR) + "/corpus") + "/" + relative;
}

std::string corpus_graph_path(const std::string& model) {
  for (const char* ext : {".pb", ".graph.json"}) {
    const std::string path = corpus_path(model + ext);
    if (std::ifstream(path).good()) return path;
  }
  throw std::runtime_error("no graph file for corpus model " + model + " under " + corpus_path(""));
}

}  // namespace pt::test
