// Settings: every knob of the partitioner, one plain struct with PyTorch's
// names, parsed once in app/ (from --set key=value and --config files) and
// passed down by const reference. Defaults are PyTorch 2.11's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "settings/memory_size.h"
#include "settings/op_classes.h"

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
  // Not PyTorch's: a random seed, its lookups and random ops reading no seed
  // are never recomputed (ban_options.h). false: PyTorch 2.11's choice,
  // which under a memory budget may change the training's random numbers.
  bool ban_recompute_rng_seeds = true;
  double max_dist_from_bw = 1000;
  double activation_memory_budget = 1.0;
  std::string activation_memory_budget_solver = "dp";  // dp, greedy, ilp
  // Peak-memory limit (settings/memory_size.h reads "3.5GB", "3GiB", or
  // "60%" of the default plan's peak); off by default. Not PyTorch's: set,
  // the tool returns the fastest predicted plan whose simulated peak fits
  // (plan/memory_limit_plan.h).
  MemoryLimit memory_limit;
  double dist_from_bw_base = 1.1;
  double dist_from_bw_cap = 100;
  // Not PyTorch's: seconds the ilp knapsack solver may run before its best
  // answer so far (or the dp solver's) is taken.
  double ilp_time_limit = 10;
  // Not PyTorch's: seconds the memory-limit planner's exact (ILP) plans may
  // take together, the whole ladder of limits (plan/exact_plan.h), and
  // again for the check at the limit itself; 0: no exact plan, the knob
  // plans and the per-value search only.
  double memory_limit_ilp_time_limit = 2;
  // Not PyTorch's: the memory-limit planner also tries checkpointing the
  // model's repeated blocks (plan/block_checkpoints.h).
  bool memory_limit_block_checkpoints = true;
  OpClasses op_classes = OpClasses::pytorch_defaults();

  // Sets one key from its text value. Keys are the names above, plus
  // "<class>.add" / "<class>.remove" / "<class>" (replace) with a comma-separated
  // packet list for the op classes recomputable_ops, random_ops, view_ops,
  // compute_intensive_ops, cse_rand_ops. A packet may be written with its
  // overload, as the graph's targets are ("aten.mm.default" is aten.mm); an
  // aten or prims packet the tool does not know is an error (other
  // namespaces, custom ops, are taken as written). Throws SettingsError
  // naming the key and the value, with the nearest key or packet for a typo.
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
