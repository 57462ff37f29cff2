// Settings: every knob of the partitioner, one plain struct with PyTorch's
// names, parsed once in app/ (from --set key=value and --config files) and
// passed down by const reference. Defaults are PyTorch 2.11's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/op_classes.h"

namespace pt {

struct Settings {
  bool cse = true;
  bool recompute_views = false;
  bool aggressive_recomputation = false;
  bool ban_recompute_used_far_apart = true;
  bool ban_recompute_long_fusible_chains = true;
  bool ban_recompute_materialized_backward = true;
  bool ban_recompute_not_in_allowlist = true;
  bool ban_recompute_reductions = true;
  bool treat_parameters_as_free_to_save = true;
  double max_dist_from_bw = 1000;
  double activation_memory_budget = 1.0;
  std::string activation_memory_budget_solver = "dp";  // dp, greedy, ilp
  // Peak-memory limit in bytes (plan/memory_size.h reads "3.5GB", "3GiB");
  // 0: none. Not PyTorch's: set, the tool returns the fastest predicted plan
  // whose simulated peak fits (plan/memory_limit_plan.h).
  uint64_t memory_limit = 0;
  double dist_from_bw_base = 1.1;
  double dist_from_bw_cap = 100;
  OpClasses op_classes = OpClasses::pytorch_defaults();

  // Sets one key from its text value. Keys are the names above, plus
  // "<class>.add" / "<class>.remove" / "<class>" (replace) with a comma-separated
  // packet list for the op classes recomputable_ops, random_ops, view_ops,
  // compute_intensive_ops, cse_rand_ops. Throws SettingsError naming the key,
  // the value and (for unknown keys) every valid key.
  void set(std::string_view key, std::string_view value);
  // "key=value".
  void set_assignment(std::string_view assignment);

  // Effective scalar settings as text, sorted by key (op classes as sizes).
  std::map<std::string, std::string> to_map() const;
  // Keys whose value differs from the default (`defaults`: a default
  // Settings the caller has already built; building one sets up PyTorch's
  // op classes, ~2,500 inserts).
  std::vector<std::string> changed_keys() const;
  std::vector<std::string> changed_keys(const Settings& defaults) const;

  static std::vector<std::string> scalar_keys();
  static std::vector<std::string> valid_keys();
};

}  // namespace pt
