// The knobs of the bandwidth model (bandwidth_model.h). Each one switches a
// heuristic that approximates a fusing compiler; the defaults are the model
// DESIGN.md section 6 describes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pt {

struct BandwidthOptions {
  // A reduction's result is only complete when its kernel ends, so its
  // consumers start a new kernel. Off: they may join the reduction's kernel
  // (as a persistent-reduction epilogue would).
  bool reductions_end_kernels = true;
  // A fused value that a later kernel needs but cannot join is computed again
  // there from its own kernel's inputs (Inductor inlines pointwise producers
  // into their consumers). Off: the value is stored by its kernel and loaded.
  bool recompute_fused_inputs = true;
  // Gather/index/embedding read only the elements they select, and a fused
  // chain that ends in one is evaluated at the selected positions only. Off:
  // they read their whole source.
  bool indexing_reads_selection = true;
  // Nodes the cycle check of one join may visit; past it the node starts a
  // new kernel instead. Keeps the grouping near-linear on 10^5-node graphs
  // (the check is a backward search bounded by the kernel's first member).
  int join_search_limit = 4096;

  // Sets one option from text (the keys above). Throws SettingsError.
  void set(std::string_view key, std::string_view value);
};

// "key=value" for BandwidthOptions::set, and the keys with their defaults.
void set_bandwidth_assignment(BandwidthOptions& o, std::string_view assignment);
std::vector<std::string> bandwidth_option_keys();

}  // namespace pt
