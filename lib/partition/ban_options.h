// Which recomputation bans are on, after aggressive_recomputation and the
// memory budget have had their say (PyTorch's MinCutOptions plus dont_ban).
#pragma once

#include <vector>

#include "settings/settings.h"

namespace pt {

struct BanOptions {
  bool used_far_apart = true;
  bool long_fusible_chains = true;
  bool materialized_backward = true;
  bool not_in_allowlist = true;
  bool reductions = true;
  // ban_recompute_rng_seeds: a random seed, its lookups and random ops that
  // read no seed are never recomputed, whatever the other options say (the
  // memory budget's stages keep it, and dont_ban never lifts it): a
  // recomputation would draw other random numbers than the forward did.
  bool rng_seeds = true;
  // Nodes the memory budget decided to recompute: every ban attempt on them
  // is refused (collectives and random-seed bans excepted). Empty = none.
  Flags dont_ban;

  // From the settings. aggressive_recomputation turns off the far-apart,
  // long-chain, materialized-backward and allowlist bans.
  static BanOptions from_settings(const Settings& s) {
    BanOptions o;
    o.used_far_apart = s.ban_recompute_used_far_apart;
    o.long_fusible_chains = s.ban_recompute_long_fusible_chains;
    o.materialized_backward = s.ban_recompute_materialized_backward;
    o.not_in_allowlist = s.ban_recompute_not_in_allowlist;
    o.reductions = s.ban_recompute_reductions;
    o.rng_seeds = s.ban_recompute_rng_seeds;
    if (s.aggressive_recomputation) {
      o.used_far_apart = o.long_fusible_chains = o.materialized_backward = o.not_in_allowlist = false;
    }
    return o;
  }
};

}  // namespace pt
