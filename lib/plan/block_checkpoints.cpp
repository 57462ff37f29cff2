#include "plan/block_checkpoints.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>

#include "graph/errors.h"
#include "plan/parallel_for.h"
#include "plan/runnable_partition.h"
#include "plan/recomputable_values.h"

namespace pt {

namespace {

// "3", or "encoder_layer_3" (torchvision's ViT names its layers so).
bool numbered(std::string_view part) {
  const size_t digits = part.find_last_not_of("0123456789");
  if (digits == std::string_view::npos) return !part.empty();
  return digits + 1 < part.size() && part[digits] == '_';
}

}  // namespace

std::string block_prefix(std::string_view path) {
  size_t start = path.find('.');
  while (start != std::string_view::npos) {
    const size_t end = path.find('.', start + 1);
    const std::string_view part = path.substr(start + 1, end == std::string_view::npos ? end : end - start - 1);
    if (numbered(part)) return std::string(path.substr(0, end));
    start = end;
  }
  return {};
}

std::vector<int> forward_blocks(const Graph& g, const PartitionResult& lent) {
  std::vector<int> block(g.size(), -1);
  std::map<std::string, int> index;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].op != OpKind::CallFunction || !lent.classification.required_fw[id]) continue;
    const std::string prefix = block_prefix(g.record(id).module_path());
    if (prefix.empty()) continue;
    const auto [it, added] = index.emplace(prefix, static_cast<int>(index.size()));
    block[id] = it->second;
  }
  return block;
}

std::vector<PlanCandidate> block_checkpoint_candidates(const Graph& prepared, const PartitionResult& lent,
                                                       const Settings& s, const Device& device,
                                                       const BandwidthOptions& o, unsigned jobs) {
  if (!s.memory_limit_block_checkpoints) return {};
  const std::vector<int> block = forward_blocks(prepared, lent);
  const int blocks = block.empty() ? 0 : *std::max_element(block.begin(), block.end()) + 1;
  if (blocks < 2) return {};
  // The first k blocks one at a time; then all of them, `per` blocks
  // recomputed together, so that only every per-th block's input is saved
  // (the recomputation then holds `per` blocks' values at once).
  struct Checkpoint {
    int first = 0, per = 1;
  };
  std::vector<Checkpoint> plans;
  for (int i = 1; i <= std::min(blocks, kBlockSteps); ++i) {
    const int k = blocks <= kBlockSteps ? i : (blocks * i + kBlockSteps - 1) / kBlockSteps;
    if (plans.empty() || plans.back().first != k) plans.push_back({k, 1});
  }
  for (int per = 2; per <= std::min(blocks / 2, kBlockSteps); ++per) plans.push_back({blocks, per});
  const Flags runnable = runnable_in_backward(recomputable_values(prepared, lent, s), lent);
  const std::vector<NodeId> reference = lent.extraction.fw_saved_outputs();
  std::vector<PlanCandidate> out(plans.size());
  parallel_for(plans.size(), jobs, [&](size_t i) {
    const Checkpoint p = plans[i];
    const auto inside = [&](NodeId id) { return block[id] >= 0 && block[id] < p.first; };
    const auto segment = [&](NodeId id) { return block[id] < 0 ? -1 : block[id] / p.per; };
    PlanCandidate& c = out[i];
    c.family = PlanFamily::BlockCheckpoint;
    c.origin = p.per == 1 ? "checkpoints on the first " + std::to_string(p.first) + " of " +
                                std::to_string(blocks) + " blocks"
                          : "checkpoints on all " + std::to_string(blocks) + " blocks, " + std::to_string(p.per) +
                                " at a time";
    // Kept: saved values outside the checkpointed blocks, and those a
    // segment hands to another (its output).
    std::vector<NodeId> saved;
    for (NodeId v : reference) {
      bool interior = inside(v);
      for (NodeId u : prepared.users[v]) {
        if (lent.classification.required_fw[u] && segment(u) != segment(v)) interior = false;
      }
      if (!interior) saved.push_back(v);
    }
    // Added: what enters a checkpointed segment from outside it, the
    // parameters it reads included.
    for (NodeId w = 0; w < prepared.size(); ++w) {
      if (!inside(w)) continue;
      for (NodeId u : prepared[w].inputs) {
        if (segment(u) != segment(w)) saved.push_back(u);
      }
    }
    std::sort(saved.begin(), saved.end());
    saved.erase(std::unique(saved.begin(), saved.end()), saved.end());
    try {
      const PartitionResult r = partition_runnable(prepared, lent, runnable, std::move(saved));
      c.saved = r.extraction.fw_saved_outputs();
      predict_plan(prepared, r, s, device, o, c);
    } catch (const InfeasibleError& e) {
      c.error = e.what();
    }
  });
  return out;
}

}  // namespace pt
