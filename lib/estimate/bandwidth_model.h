// The bandwidth model (docs/design.md section 6): bytes loaded and stored, FLOPs
// and a roofline time for the extracted forward and backward graphs, on one
// device. Kernels come from fusion_groups.h; this file costs them.
//
// Each kernel stores its stored values and loads each value from outside it
// once. What it reads of an input is the demand of its own computation,
// walked backward from what it stores (in elements):
//   - a stored value is needed whole;
//   - a view, and the source of an indexing op (gather, index, embedding,
//     index_select) with indexing_reads_selection, need min(numel(input),
//     demand): a fused chain that ends in a gather is evaluated at the
//     gathered positions only;
//   - an input no larger than the consumer (pointwise, broadcast) needs
//     min(numel(input), demand);
//   - a larger input (a reduction) needs demand * numel(input) / numel(consumer).
// A fused value from a kernel this one could not join, and that is not
// stored, is computed again here from that kernel's inputs (with
// recompute_fused_inputs), so its inputs count as this kernel's loads: a
// consumer of a reduction's result and its input reads the input again.
// Values Inductor would realize (realize_reused_values, fusion_groups.h)
// are stored once instead.
// Roofline per kernel: max(bytes / bandwidth, FLOPs / peak), where FLOPs are
// counted for compute-intensive ops only (torch.utils.flop_counter's formulas).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "settings/op_classes.h"
#include "analysis/subgraph.h"
#include "estimate/peak_memory.h"
#include "graph/graph.h"
#include "partition/partitioner.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"
#include "estimate/fusion_groups.h"

namespace pt {

// (operator==: tests compare estimates.)
struct Transfer {
  NodeId node;
  uint64_t bytes;
  friend bool operator==(const Transfer&, const Transfer&) = default;
};

struct KernelEstimate {
  NodeId first;                  // its first node, graph order (the op, for kernels of their own)
  bool fused;                    // a group of fusible ops (else a single non-fusible op)
  // Its loads, then its stores, each in graph order: the pass's
  // transfers[transfers_at, transfers_at + load_count + store_count) (one
  // list per pass, not two per kernel: 300,000 allocations at 10^6 nodes).
  int32_t transfers_at = 0;
  int32_t load_count = 0;
  int32_t store_count = 0;
  uint64_t bytes_loaded = 0;
  uint64_t bytes_stored = 0;
  uint64_t bytes_cached = 0;     // of bytes_loaded: rows read again from the cache (no bandwidth time)
  double flops = 0;              // runtime_estimate.h's count, exact below 2^53
  double seconds = 0;
  // Of seconds: what its NCHW layout costs beyond channels-last, cuDNN's
  // layout conversions around it and a misaligned GEMM's slowdown
  // (nchw_conversions.h).
  double conversion_seconds = 0;
  friend bool operator==(const KernelEstimate&, const KernelEstimate&) = default;
};

// What a pass's estimate keeps besides its totals: each kernel's estimate
// and transfers (the API's and the tests' default), or the totals and the
// kernel count alone (the report and the sweep, which print nothing else:
// at 10^6 nodes the two passes' lists were 30 MB of fresh memory at the
// report's peak).
enum class PassDetail { Kernels, Totals };

struct PassEstimate {
  int64_t kernel_count = 0;   // the kernels below, also when they are not kept (PassDetail::Totals)
  // Sums over kernels, as doubles: a value is read once per kernel that
  // loads it, so no bound on the graph's bytes keeps these below 2^64
  // (graph/value_bytes_limit.h); exact below 2^53.
  double bytes_loaded = 0;
  double bytes_stored = 0;
  double bytes_cached = 0;  // of bytes_loaded (KernelEstimate::bytes_cached)
  double flops = 0;
  double seconds = 0;
  double conversion_seconds = 0;  // of seconds: KernelEstimate::conversion_seconds
  std::vector<KernelEstimate> kernels;  // those that store something or compute a non-fusible op
  std::vector<Transfer> transfers;      // the kernels' loads and stores (KernelEstimate::transfers_at)
  Flags stored;             // per joint node: written to memory (peak_memory.h's Materialized)
  Flags realized;           // per joint node: FusionGroups::realized
  std::vector<int32_t> kernel;          // per joint node: FusionGroups::kernel

  double bytes() const { return bytes_loaded + bytes_stored; }
  friend bool operator==(const PassEstimate&, const PassEstimate&) = default;
};

struct BandwidthEstimate {
  Device device;
  PassEstimate forward;
  PassEstimate backward;
};

// One pass: `pass` is its keep/input mask over the prepared joint graph,
// `outputs` what it returns.
// `recomputed`: the forward nodes the pass computes again (the backward's).
PassEstimate estimate_pass(const Graph& g, const Subgraph& pass, const std::vector<NodeId>& outputs,
                           const OpClasses& ops, const Device& device, const BandwidthOptions& o = {},
                           const std::vector<NodeId>& recomputed = {});

// Both passes of a partition: the forward returns its outputs and the saved
// values and symbols, the backward its gradients. `ops` are the op classes
// of the settings r was partitioned with; r.node_ops, the per-node lookup
// partition_graph made of them, is used when r carries it.
BandwidthEstimate estimate_bandwidth(const Graph& prepared, const PartitionResult& r, const OpClasses& ops,
                                     const Device& device, const BandwidthOptions& o = {},
                                     PassDetail detail = PassDetail::Kernels);

// Peak memory of the partition where values a kernel keeps in registers
// allocate nothing: the estimate's stored masks say which values reach
// memory (the report's memory.* and the sweep's peak column).
// `timeline`, when given, receives the memory over time (estimate/memory_timeline.h).
PeakMemory fused_peak_memory(const Graph& prepared, const PartitionResult& r, const OpClasses& ops,
                             const BandwidthEstimate& bw, const BandwidthOptions& o = {},
                             MemoryTimeline* timeline = nullptr);

// estimate_bandwidth then fused_peak_memory, with the peak simulation run
// from the passes' kernel groups as they are made: the same two results.
struct BandwidthAndPeak {
  BandwidthEstimate bandwidth;
  PeakMemory memory;
};
// `timeline`, when given, receives the memory over time
// (estimate/memory_timeline.h).
BandwidthAndPeak estimate_bandwidth_and_peak(const Graph& prepared, const PartitionResult& r, const OpClasses& ops,
                                             const Device& device, const BandwidthOptions& o = {},
                                             PassDetail detail = PassDetail::Kernels,
                                             MemoryTimeline* timeline = nullptr);

}  // namespace pt
