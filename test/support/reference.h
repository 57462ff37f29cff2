// Test support: reading corpus reference files and mapping their settings.
#pragma once

#include <string>

#include "settings/settings.h"
#include "support/reference.pb.h"

namespace pt::test {

namespace ref = ::partition_tool::reference;

// Parses <model>.ref.json; throws std::runtime_error on failure.
ref::Reference load_reference(const std::string& path);
// The run's overrides applied to default settings ("_dist_base" ->
// dist_from_bw_base, "_dist_cap" -> dist_from_bw_cap, other keys as named).
Settings settings_of(const ref::Run& run);
// PT_TEST_DIR "/corpus/" + relative (or $PT_CORPUS_DIR/relative).
std::string corpus_path(const std::string& relative);
// The graph file of a corpus model: <model>.pb, else <model>.graph.json.
std::string corpus_graph_path(const std::string& model);

}  // namespace pt::test
