// `sweep --plot FILE.svg`: the memory/recompute trade-off of a sweep as a
// self-contained SVG (no scripts, no fonts beyond the generic sans-serif).
//
// x is the memory of each row: the bytes the forward saves for the backward
// (what activation_memory_budget budgets; the default), or the simulated
// peak activation memory (the report's memory.peak_bytes, which also counts
// what the loss or the backward allocates whatever the cut); y is the FLOPs
// the backward spends recomputing. Each row
// is a point labelled with its value; the Pareto-optimal rows (no other row
// has both less or equal memory and less or equal recompute, one of them
// strictly) are filled and joined by the frontier's staircase, the dominated
// ones are hollow. Hovering a point shows its row (<title>). Rows without a
// finite cut are left out and the caption says how many.
//
// A sweep of memory_limit draws instead the peak (x) against the predicted
// step time (y): the plan each limit gets, beside the plans of PyTorch's
// activation_memory_budget grid (SweepResult::knob_points).
#pragma once

#include <ostream>
#include <vector>

#include "report/sweep.h"

namespace pt {

enum class PlotMemory { Saved, Peak };

// Indices of the Pareto-optimal rows over (memory, recomputed_flops),
// ascending memory; rows with an error are never optimal. Equal points are
// all kept.
std::vector<size_t> pareto_rows(const SweepResult& r, PlotMemory x = PlotMemory::Saved);

void write_sweep_svg(std::ostream& out, const SweepResult& r, PlotMemory x = PlotMemory::Saved);

}  // namespace pt
