// The peak simulation's memory over time (estimate/peak_memory.h records it
// when given a MemoryTimeline): which value holds memory at each step of the
// forward then the backward, and why. From it: the live set at any step
// (what a user cuts to lower the peak, what a memory-limit planner names),
// and a curve of live bytes by category, aggregated to a bounded number of
// points for plotting.
//
// A step is one position of a pass's order (a node of the forward, then of
// the backward); live bytes at a step are counted after the step's node
// allocates and before its dead inputs are freed, where the simulation
// looks for its peak.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace pt {

enum class MemoryCategory : uint8_t { Input, Saved, Gradient, Temporary };
inline constexpr size_t kMemoryCategoryCount = 4;
// "inputs" (parameters, inputs, tangents), "saved", "gradients", "temporaries".
std::string_view memory_category_name(MemoryCategory c);

// Why a value holds memory at a step.
enum class LiveReason : uint8_t {
  Input,           // a parameter or input, held by the caller for the whole step
  Tangent,         // an input of the backward
  Saved,           // saved by the forward for the backward
  Gradient,        // a gradient the backward returns
  ForwardOutput,   // an output of the forward, held to the end of the step
  RunningKernel,   // allocated by the node (or fused kernel) running at this step
  AwaitingReader,  // a temporary that a later node still reads
  HeldForReuse,    // freed, kept for the next buffer of its size (Inductor's buffer reuse)
};

// One value's stay in memory: live at steps first..last inclusive (last:
// kStillLive when nothing frees it). `node` is the value whose buffer it is
// (a view's base; a fused output written in place owns its input's buffer
// from its own step on). `bytes` is the node's size, but for a base whose
// saved views the backward frees: the simulation frees each view's own
// size (a backward input is its own storage there), so the base stays on
// with what they did not free.
struct ValueLifetime {
  static constexpr int32_t kStillLive = std::numeric_limits<int32_t>::max();
  NodeId node = kNoNode;
  uint64_t bytes = 0;
  int32_t first = 0;
  int32_t last = kStillLive;
  NodeId reader = kNoNode;  // the node whose step ends it (its last reader, or the value taking its buffer)
  MemoryCategory category = MemoryCategory::Temporary;
  LiveReason reason = LiveReason::AwaitingReader;  // RunningKernel is decided per step
};

struct MemoryTimeline {
  std::vector<NodeId> steps;     // the node run at each step: the forward's order, then the backward's
  size_t backward_from = 0;      // the first backward step
  size_t peak_step = 0;          // where the simulation's peak is (its first step, as peak_at)
  std::vector<ValueLifetime> lifetimes;
};

struct LiveValue {
  NodeId node = kNoNode;
  uint64_t bytes = 0;
  MemoryCategory category = MemoryCategory::Temporary;
  LiveReason reason = LiveReason::AwaitingReader;
  NodeId reader = kNoNode;  // its last reader, where one frees it
};

// The values live at `step`, largest first (then by node id). Their bytes
// sum to the simulation's live total there.
std::vector<LiveValue> live_at(const Graph& g, const MemoryTimeline& t, size_t step);
inline std::vector<LiveValue> live_at_peak(const Graph& g, const MemoryTimeline& t) {
  return live_at(g, t, t.peak_step);
}
// "saved for the backward, read last by mm_1", "temporary of the running
// kernel", ... (`reader`: the last reader's name, empty for none).
std::string live_reason_text(LiveReason reason, std::string_view reader);
// "saved", "running_kernel", ...: the JSON report's reason_code.
std::string_view live_reason_code(LiveReason reason);

// Live bytes per category at every step.
using CategoryBytes = std::array<uint64_t, kMemoryCategoryCount>;
uint64_t total_bytes(const CategoryBytes& b);
std::vector<CategoryBytes> bytes_by_step(const MemoryTimeline& t);

// The curve aggregated to at most `max_points` points: consecutive steps
// share a bucket (never across the forward/backward boundary), shown at its
// highest step, so the peak is kept exactly. `largest` holds up to
// `members` of that step's largest live values.
struct MemoryPoint {
  size_t first_step = 0, last_step = 0;  // the bucket
  size_t step = 0;                       // its highest step (the first of equals)
  CategoryBytes bytes{};                 // live at `step`
  std::vector<LiveValue> largest;
};
std::vector<MemoryPoint> memory_curve(const Graph& g, const MemoryTimeline& t, size_t max_points,
                                      size_t members = 5);

}  // namespace pt
