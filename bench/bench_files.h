// The files the benchmarks run on: the corpus graphs and PyTorch's flow
// networks under PT_SOURCE_DIR/test/corpus (and scale/), plus any paths in
// the environment variable PT_BENCH_GRAPHS (colon-separated .pb files).
#pragma once

#include <string>
#include <vector>

namespace pt::bench {

// Files in test/corpus and test/corpus/scale whose names end with `suffix`, sorted.
std::vector<std::string> corpus_files(const std::string& suffix);
// corpus_files(".pb") plus $PT_BENCH_GRAPHS.
std::vector<std::string> bench_graphs();
// "test/corpus/scale/gpt2_l24.flow.dimacs" -> "gpt2_l24".
std::string short_name(const std::string& path, const std::string& suffix);

void register_flow_benchmarks();
void register_stage_benchmarks();

}  // namespace pt::bench
