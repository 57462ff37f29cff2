// The knobs of the bandwidth model (bandwidth_model.h). Each one switches a
// heuristic that approximates a fusing compiler; the defaults are the model
// docs/design.md section 6 describes.
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
  // Except a reduction along rows of at most 1024 elements (a LayerNorm's
  // statistics, a softmax over a short row): Inductor runs it as a
  // persistent reduction, the whole row in registers, and the readers of its
  // result (the mean of var_mean through its getitem included) join its
  // kernel, as the normalized input of a recomputed LayerNorm does in ViT's
  // and the MoE's generated backward code. Kept apart, the model stored
  // values Inductor keeps in registers and missed others it stores: against
  // Inductor's replay of the backward (H100), moe_top2 at budget 0.2 went
  // from -118 to -51 MB, and moe_top2's 60% memory-limit plan, 3% over
  // its limit without the join, fits; vit_l6 at 0.2 and 0.5 went from
  // -57/-46 to +50/+78 MB (its residual-stream kernel now stores six
  // LayerNorms' normalized inputs, Inductor's two). Longer rows loop, and
  // their readers re-read the row as a kernel of their own would (linear_ce's
  // online softmax). Peak memory only: step times are costed on kernels
  // without the join, on which the device terms were measured; with it, the
  // recomputed softmaxes and LayerNorms of bert_mlm's and bloom_lm's budget
  // 0.5 cost 0.7 ms less than without, and their measured step-time deltas
  // were 0.7-1.0 ms above the prediction (H100). Off: every reduction ends
  // its kernel.
  bool row_reduction_readers_join = true;
  // A fused value that a later kernel needs but cannot join is computed again
  // there from its own kernel's inputs (Inductor inlines pointwise producers
  // into their consumers). Off: the value is stored by its kernel and loaded.
  bool recompute_fused_inputs = true;
  // Inductor's realize-on-reuse (GraphLowering.run_node, StorageBox.mark_reuse
  // in torch/_inductor): a fused value with several readers whose inlined
  // computation reads more than 4 buffers (config.realize_reads_threshold),
  // or any fused value whose computation reads more than 8
  // (config.realize_acc_reads_threshold), is stored once and loaded by the
  // kernels that read it instead of being computed again in each. Without
  // it, a chain the backward recomputes (a residual stream summed over every
  // layer) was recomputed from all its inputs in every reader, and the
  // recomputation traffic of memory budgets came out ~3x what an H200
  // measured (docs/bandwidth_model.md). Off: values are computed again wherever
  // read (recompute_fused_inputs alone).
  bool realize_reused_values = true;
  // With realize_reused_values: Inductor's lowering also realizes a
  // pointwise value whose inlined expression has more than 30 ops
  // (config.realize_opcount_threshold; GraphLowering.run_node's
  // has_exceeded_max_reads, then realize_hint when the expression loads more
  // than one non-scalar buffer). Ops are counted per node as Inductor's
  // OpCounterCSE names them (inductor_op_count.h). A cross-entropy
  // gradient crosses it when the backward recomputes the softmax statistics
  // (29 ops with them saved, 31 recomputed, on GPT, GPT-2, ViT, the MLPs and
  // linear_ce): Inductor then realizes the float32 gradient inside the loss
  // kernel, and the bfloat16 gradient that reads it is not written in place
  // into the logits (peak_memory.h; Inductor's generated code on the H200: a second
  // logits-sized buffer in all 13 loss kernels that realize the float32
  // gradient, in place in 26 of the 28 that do not; the other two pad the
  // vocabulary).
  // With backward_order_from_tangents, pad_is_pointwise and
  // allocate_at_kernel_launch it fixes nine peak pairs and loses none
  // (measured on the H200, docs/bandwidth_model.md). Off: only the
  // read counts realize.
  bool realize_large_expressions = true;
  // constant_pad_nd is fused like a pointwise op (Inductor lowers it to a
  // masked load in its readers' loops), though it is not in PyTorch's
  // recomputable set, which still decides the partition. Llama pads its
  // labels: under a memory budget the backward recomputes the pad inside the
  // loss gradient, whose op count then crosses realize_large_expressions'
  // bound (Llama under budgets 0.5 and 0.1: no in-place gradient, a second
  // logits-sized buffer; with the labels saved, in place). A pad that a
  // matmul reads (Inductor's pad_mm pass: GPT-2's and linear_ce's padded
  // lm head and loss gradient) stays a kernel of its own (fusion_groups.cpp).
  // Off: every pad is a kernel of its own.
  bool pad_is_pointwise = true;
  // Every op tagged pointwise is fused like one (Inductor lowers it to a
  // pointwise loop), though PyTorch's fusible set lacks some: prims.fma of
  // a decomposed softmax backward (inductor_fusible.h says what it cost).
  // Off: only the fusible set (and pads, above) fuse.
  bool pointwise_tag_fuses = true;
  // select_scatter and slice_scatter fuse like pointwise ops (Inductor's
  // lowering; inductor_fusible.h says what it cost). Off: each is a kernel
  // that copies its destination.
  bool slice_scatters_fuse = true;
  // The max- and average-pooling gradients fuse like pointwise ops: Inductor
  // lowers each to a gather over the pooling windows that hold an input
  // element, computed in the kernel of its readers (max-pooling's indices
  // from the saved offsets inside it), each window tap at
  // Device::pool_tap_seconds (inductor_fusible.h). Off: each is a kernel of
  // its own, costed by its bytes.
  bool pooling_gradients_fuse = true;
  // A copy_ into a graph input (BatchNorm's running statistics, any input
  // mutation) is a store of the kernel that computes the value copied:
  // Inductor writes the mutated input from that kernel (MobileNetV3's 46
  // kernels named triton_poi_fused_add_copy_, where 138 copy_ nodes had
  // been 138 kernels of their own). Off: each copy_ is a kernel.
  bool fuse_input_copies = true;
  // Kernels that read the same buffer run as one when that creates no cycle
  // (Inductor's horizontal fusion; sibling_fusion.h says when): a
  // recomputation in the backward and the backward op that reads the same
  // saved value load it once. Off: each kernel loads what it reads.
  bool merge_sibling_kernels = true;
  // A reduction over fewer than 8 elements per output (the sum over the
  // top-2 experts' gradients of a mixture-of-experts layer) is a pointwise
  // op: Inductor's lowering unrolls it (config.unroll_reductions_threshold),
  // so it fuses into its reader instead of ending its kernel. In moe_top2's
  // backward that sum ran with its reader after the router's gradient, and
  // the expert output it reads stayed allocated until then (on the H100:
  // the 60% memory-limit plan's measured peak). Off: every node tagged
  // reduction is one.
  bool unroll_small_reductions = true;
  // A constant fill the pass computes (aten.full, no tensor input) that a
  // functional scatter (index_put) writes into is that scatter's own
  // buffer, filled right before it: no stored fill, and no copy fused with
  // other scatters' (fuse_scatter_copies). Inductor's code for moe_top2
  // under budgets 0.2 and 0.5 writes a fresh new_zeros buffer before each
  // index_put, where the simulation held one 84 MB zero fill from the first
  // reader to the last and the three layers' copies together. An ATen
  // fallback that reads the fill (index_add) still reads one stored fill,
  // as there. Off: the fill is stored for scatters too.
  bool fills_at_readers = true;
  // Gather/index/embedding read only the elements they select, and a fused
  // chain that ends in one is evaluated at the selected positions only. Off:
  // they read their whole source.
  bool indexing_reads_selection = true;
  // Kernels run at the device's measured fraction of its peaks
  // (Device::memory_efficiency, matmul_efficiency; the h200 preset carries
  // them): the achieved rates, not the datasheet's, are what a step takes.
  // Off: the roofline at the datasheet peaks.
  bool apply_device_efficiency = true;
  // A fused kernel takes at least as long as its arithmetic: evaluations of
  // erf, exp, sin and cos at the device's measured cost (Device::erf_seconds,
  // exp_seconds; the h200 preset carries them), each distinct expression
  // once (kernel_arithmetic.h). GELU kernels run at ~2.5 TB/s on an H200,
  // bound by erf: an extra store costs them ~18 us where bytes alone said 64
  // (docs/bandwidth_model.md, fifth pass); rotary embeddings' cos and sin,
  // computed again in every layer's kernels, made Qwen2's step 0.57 ms
  // slower than saving them. Off: fused kernels cost their bytes only.
  bool fused_compute_floor = true;
  // A kernel that reads a reduction's result and that reduction's input
  // (the consumer a reduction's kernel could not hold: softmax's division,
  // LayerNorm's normalization) runs in Inductor as a second loop of the
  // reduction's kernel, over the same row just read: rows of at most
  // Device::cached_row_bytes (the h200 preset carries it) come from the
  // cache. Their bytes count as loaded (traffic) but take no bandwidth time.
  // Off: every load takes bandwidth time.
  bool cached_row_rereads = true;
  // Peak memory (fused_peak_memory, estimate/peak_memory.h's Materialized):
  // what a value kept in registers is computed from stays live until that
  // value's last reader, which computes it again...
  bool sources_live_to_readers = true;
  // ...and a fused output takes the memory of a same-sized buffer it reads
  // for the last time (Inductor's inplace_buffers). Off: each node allocates
  // its own output.
  bool write_in_place = true;
  // The backward runs in PyTorch's order (reordering_to_mimic_autograd_engine,
  // estimate/backward_order.h's append_backward_order): from the first node that reads
  // a tangent, each node after what it needs; a node before that reader runs
  // only when a later one needs it. Without it, the values only the backward
  // computes in the forward's region (the statistics of a recomputed
  // attention) start walks of their own, and the recomputation of every
  // layer runs before the loss backward: GPT under a 0.5 budget holds 0.64 GB
  // more at the loss kernel than Inductor, which runs that kernel first (its
  // generated code on the GPU). ViT under aggressive recomputation needs
  // allocate_at_kernel_launch with it (Inductor recomputes its residual
  // stream for all layers in one kernel right after the loss; without this
  // order, the early walks stand in for that). Off: the walks start at
  // every backward node that is no recomputation.
  bool backward_order_from_tangents = true;
  // Peak memory: a backward kernel's stored values, recomputed forward
  // values excepted, are allocated when its first node runs, as Inductor
  // allocates a kernel's outputs before launching it (estimate/peak_memory.h's
  // Materialized::backward_kernel; on the H200, ViT's residual-stream kernel
  // allocates ten layers' LayerNorm-backward values at once, 0.28 GB the
  // model missed). Off: each value is allocated at its own node.
  bool allocate_at_kernel_launch = true;
  // Peak memory: a backward kernel runs whole, once what it reads from
  // outside is ready, and its readers after it (estimate/kernel_order.h:
  // Inductor's scheduler orders fused nodes so; the recomputed SiLU output
  // fused with its backward holds a mixture-of-experts buffer longer).
  // Needs allocate_at_kernel_launch. Off: kernels' nodes run where PyTorch
  // emits them.
  bool kernels_run_whole = true;
  // Peak memory, three rules of Inductor's code generation
  // (estimate/peak_memory.cpp says why): a matmul whose only reader is an
  // add runs at that add, as Inductor's addmm (estimate/matmul_at_add.h);
  // buffers have Inductor's padded layouts and a matmul's pad into that
  // padding is a view (estimate/inductor_padding.h); a freed buffer stays
  // allocated until the next buffer of its size and dtype takes it
  // (Inductor's buffer reuse). Off: a matmul runs at its own place; a
  // buffer has its value's size and every pad is a copy; a buffer is freed
  // where it dies.
  bool matmul_at_add = true;
  bool padded_buffers = true;
  bool reuse_freed_buffers = true;
  // Peak memory: a functional scatter's copy of its destination fuses with
  // the copies of that buffer within 64 nodes and is allocated with the
  // first (estimate/peak_memory.cpp). Off: each at its own scatter.
  bool fuse_scatter_copies = true;
  // A convolution_backward runs one kernel per gradient it returns (cuDNN's
  // dgrad and wgrad, or cuBLAS's two GEMMs for a 1x1 convolution on
  // channels-last tensors), each reading the output gradient: its time is
  // the two kernels' times, each its FLOP term at the convolution rate or
  // its bytes, whichever is longer (kernel_flops.h's convolution_kernels).
  // As one kernel, a memory-bound backward read the output gradient once:
  // MobileNetV3's and ResNet-50's 1x1 convolutions on few channels ran, in
  // their profiles, as two GEMMs of the output gradient's size per backward
  // (+0.2 ms of predicted step time for each; bf16, one H100). Off: one
  // kernel of the node's loads, stores and FLOPs.
  bool split_convolution_backward = true;
  // Inductor runs a reduction to few outputs over many elements as two
  // kernels, partial results then their combination (column_reduction.h's
  // is_split_reduction): a kernel holding one costs two kernel latencies
  // more, its second kernel's and the partial results' pass. On one H100,
  // ResNet-50's and MobileNetV3's BatchNorm statistics (bf16,
  // channels-last) ran as a first kernel of about 3.5 us beyond its bytes,
  // a second of 2.0-2.3 us and, for three in four, a third of 2 us; as one
  // kernel of 2 us the model left the backward's recomputed statistics
  // (ban_recompute_reductions=false) 40% short. Off: one kernel.
  bool split_reductions = true;
  // A reduction across rows (column_reduction.h: it keeps its input's
  // innermost axis) starts a kernel of its own instead of joining its
  // producer's. Inductor fuses a producer into a reduction only where the
  // reduction's loops write what the producer's loops read at the same
  // iteration; a sum across rows walks the rows of each column, the
  // producer the columns of each row, so the scheduler keeps them apart
  // (ConvNeXt's, ViT's and BERT's bias and LayerNorm-weight gradients: a
  // pointwise kernel stores the gradient, a split reduction reads it
  // again). What the reduction alone reads is computed again inside it
  // (recompute_fused_inputs), as Inductor inlines it. Such kernels merge
  // with siblings only of the same reduction shape whose reads nest (one
  // reads nothing the other does not: sibling_fusion.h), or with a reduction
  // along the rows of the same input where Inductor's mix-order reduction
  // joins the two (sibling_fusion.h). Off: the reduction joins its
  // producer's kernel.
  bool column_reductions_start_kernels = true;
  // Where Inductor's layout optimization applies (inductor_layout.h: a
  // forward with enough convolutions of the kinds it favours), the 4-D
  // values it lays out channels-last (the convolutions', what feeds them,
  // what is computed from them) are read so, whatever the recorded strides:
  // an NCHW model's BatchNorm statistics become reductions across rows,
  // split in two.
  // ConvMixer (NCHW, bf16, one H100) ran its recomputed statistics as
  // kernels of 28, 3 and 1.5 us where the recorded strides predicted one
  // of 19. Off: the recorded strides.
  bool inductor_layout_optimization = true;
  // A 16-bit convolution with a filter wider than 1x1 (or strided) that Inductor leaves
  // NCHW runs between cuDNN's layout conversions of its tensors
  // (nchw_conversions.h), which each of its kernels pays for. Off: no
  // conversion is costed.
  bool nchw_layout_conversions = true;
  // A 16-bit 1x1 convolution of stride 1 that Inductor leaves NCHW, at a
  // pixel count that is not a multiple of 8, runs as GEMMs of 2- or
  // 1-element alignment, each kernel DenseConvolution::misaligned_nchw
  // times its channels-last time (nchw_conversions.h). Off: as
  // channels-last.
  bool nchw_misaligned_gemms = true;
  // A reduction across rows that the backward recomputes (BatchNorm's
  // statistics of a channels-last activation the forward did not save)
  // reads its input from memory written long before, where the forward's
  // read it just after it was written: its kernel takes
  // Device::column_reduction.recomputed_seconds more. Off: recomputed
  // reductions cost as the forward's.
  bool recomputed_reductions_read_cold = true;
  // Nodes the cycle check of one join may visit; past it the node starts a
  // new kernel instead. Keeps the grouping near-linear on 10^5-node graphs
  // (the check is a backward search bounded by the kernel's first member).
  int join_search_limit = 4096;

  // Sets one option from text (the keys above). Throws SettingsError.
  void set(std::string_view key, std::string_view value);
};

// The options step times are costed with: `o` without
// row_reduction_readers_join, which shapes the peak simulation's kernels
// only.
inline BandwidthOptions costed_options(BandwidthOptions o) {
  o.row_reduction_readers_join = false;
  return o;
}

// "key=value" for BandwidthOptions::set, and the keys with their defaults.
void set_bandwidth_assignment(BandwidthOptions& o, std::string_view assignment);
std::vector<std::string> bandwidth_option_keys();

}  // namespace pt
