#include "estimate/buffer_reuse.h"

#include <algorithm>
#include <unordered_map>

namespace pt {

namespace {

// Bytes per position under additions to ranges, and the largest over a
// range, each in O(log n): a segment tree whose inner nodes hold their
// subtree's largest value plus what was added to all of it (`added`).
class RangeMax {
 public:
  explicit RangeMax(const std::vector<uint64_t>& values)
      : n_(values.size()), top_(2 * values.size(), 0), added_(values.size(), 0) {
    while ((size_t{1} << height_) < n_) ++height_;
    std::copy(values.begin(), values.end(), top_.begin() + static_cast<std::ptrdiff_t>(n_));
    for (size_t i = n_ - 1; i > 0; --i) top_[i] = std::max(top_[2 * i], top_[2 * i + 1]);
  }

  // Adds v to positions [l, r).
  void add(size_t l, size_t r, uint64_t v) {
    if (l >= r) return;
    l += n_;
    r += n_;
    const size_t l0 = l, r0 = r - 1;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) apply(l++, v);
      if (r & 1) apply(--r, v);
    }
    rebuild(l0);
    rebuild(r0);
  }

  // The largest value over positions [l, r) (0 when empty).
  uint64_t max(size_t l, size_t r) {
    if (l >= r) return 0;
    l += n_;
    r += n_;
    push(l);
    push(r - 1);
    uint64_t out = 0;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) out = std::max(out, top_[l++]);
      if (r & 1) out = std::max(out, top_[--r]);
    }
    return out;
  }

 private:
  void apply(size_t i, uint64_t v) {
    top_[i] += v;
    if (i < n_) added_[i] += v;
  }
  void rebuild(size_t i) {
    for (i >>= 1; i > 0; i >>= 1) top_[i] = std::max(top_[2 * i], top_[2 * i + 1]) + added_[i];
  }
  void push(size_t leaf) {
    for (size_t s = height_; s > 0; --s) {
      const size_t i = leaf >> s;
      if (i == 0 || added_[i] == 0) continue;
      apply(2 * i, added_[i]);
      apply(2 * i + 1, added_[i]);
      added_[i] = 0;
    }
  }

  size_t n_ = 0, height_ = 0;
  std::vector<uint64_t> top_, added_;
};

}  // namespace

std::vector<BufferEvent> plan_buffer_reuse(const Graph& g, const std::vector<NodeId>& order,
                                           std::vector<BufferEvent> allocations, std::vector<BufferEvent> frees,
                                           const std::vector<uint64_t>& estimate) {
  std::vector<BufferEvent> reused;
  if (allocations.empty() || frees.empty() || estimate.empty()) return reused;
  auto by_position = [](const BufferEvent& a, const BufferEvent& b) { return a.at < b.at; };
  std::stable_sort(allocations.begin(), allocations.end(), by_position);
  std::stable_sort(frees.begin(), frees.end(), by_position);
  auto key = [&](int32_t buffer) {
    const Node& n = g[order[static_cast<size_t>(buffer)]];
    return (n.size_bytes << 8) | n.dtype;
  };
  RangeMax level(estimate);
  const uint64_t peak = *std::max_element(estimate.begin(), estimate.end());
  std::unordered_map<uint64_t, std::vector<BufferEvent>> pool;  // per key, the pooled frees, last on top
  size_t f = 0;
  for (const BufferEvent& a : allocations) {
    for (; f < frees.size() && frees[f].at < a.at; ++f) pool[key(frees[f].buffer)].push_back(frees[f]);
    const auto it = pool.find(key(a.buffer));
    if (it == pool.end() || it->second.empty()) continue;
    const BufferEvent freed = it->second.back();
    const auto from = static_cast<size_t>(freed.at) + 1, to = static_cast<size_t>(a.at);
    const uint64_t bytes = g[order[static_cast<size_t>(freed.buffer)]].size_bytes;
    if (from < to && level.max(from, to) + bytes > peak) continue;  // stays pooled
    level.add(from, to, bytes);
    reused.push_back({a.at, freed.buffer});
    it->second.pop_back();
  }
  return reused;
}

}  // namespace pt
