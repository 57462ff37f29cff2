// Device presets and custom bandwidths for the bandwidth model.
#include <doctest/doctest.h>

#include "graph/errors.h"
#include "estimate/bandwidth_options.h"
#include "estimate/device.h"

TEST_CASE("device presets carry datasheet bandwidth and dense bf16 peak") {
  const pt::Device a100 = pt::parse_device("a100");
  CHECK(a100.bytes_per_second == 1.555e12);
  CHECK(a100.flops_per_second == 312e12);
  CHECK(pt::parse_device("h100").bytes_per_second == 3.35e12);
  CHECK(pt::parse_device("h100").flops_per_second == 989e12);
  CHECK(pt::parse_device("h200").bytes_per_second == 4.8e12);
  CHECK(pt::parse_device("h200").flops_per_second == 989e12);
  // float32 matmuls run on TF32 tensor cores at half the bf16 rate.
  CHECK(a100.fp32_flops_per_second == 156e12);
  CHECK(pt::parse_device("h200").fp32_flops_per_second == 494e12);
  CHECK(pt::parse_device("2e12:400e12").fp32_flops_per_second == 200e12);
}

TEST_CASE("h100 and h200 carry their measured efficiencies; unmeasured presets and numbers run at their peaks") {
  const pt::Device h200 = pt::parse_device("h200");
  // docs/bandwidth_model.md: a 3.3 GB copy at 4.24e12 B/s; cuBLAS at 616e12 bf16, 300e12 TF32.
  CHECK(h200.memory_efficiency == 0.88);
  // device.cpp: cuBLAS over a grid of linear layers on an H100 (the same
  // compute on both chips), 0.70 of the bf16 peak and 0.55 of TF32's, with
  // 4 us a matmul and 2 us any other kernel.
  CHECK(h200.matmul_efficiency == 0.70);
  CHECK(h200.fp32_matmul_rate_fraction() == 0.55);
  CHECK(h200.matmul_latency_seconds == 4e-6);
  CHECK(h200.kernel_latency_seconds == 2e-6);
  // docs/prediction_accuracy.md: on an H100 a 3.3 GB copy at 2.98e12 B/s;
  // cuDNN's convolutions of a ResNet-50 step at 0.3
  // of the peaks, on both chips (the same compute).
  const pt::Device h100 = pt::parse_device("h100");
  CHECK(h100.memory_efficiency == 0.89);
  CHECK(h100.matmul_efficiency == 0.70);
  CHECK(h100.fp32_matmul_rate_fraction() == 0.55);
  CHECK(h100.conv_efficiency == 0.30);
  CHECK(h200.conv_efficiency == 0.30);
  // Depthwise kernels (device.cpp): ConvNeXt-T's work rates, MobileNetV3's
  // bandwidth fractions, one pair per kernel.
  CHECK(h100.depthwise.forward.flops_fraction == 0.16);
  CHECK(h100.depthwise.input_gradient.flops_fraction == 0.083);
  CHECK(h100.depthwise.weight_gradient.flops_fraction == 0.20);
  CHECK(h100.depthwise.forward.bandwidth_fraction == 0.58);
  CHECK(h100.depthwise.weight_gradient.bandwidth_fraction == 0.195);
  CHECK(h200.depthwise.input_gradient.flops_fraction == h100.depthwise.input_gradient.flops_fraction);
  // Stems of 3 channels and per-channel statistics of few channels (device.cpp).
  CHECK(h100.narrow_conv.forward.seconds_per_element == 7.5e-12);
  CHECK(h100.narrow_conv.weight_gradient.flops_per_second == 64e12);
  CHECK(h100.column_reduction.row_overhead_bytes == 64);
  CHECK(h200.column_reduction.row_overhead_bytes == h100.column_reduction.row_overhead_bytes);
  // Grouped convolutions: 24 channels a group (not a power of two) far
  // slower than 32 (device.cpp).
  CHECK(h100.grouped_conv.forward.other == 12e12);
  CHECK(h100.grouped_conv.weight_gradient.by_power_of_two[0] == 2.3e12);
  CHECK(h100.grouped_conv.input_gradient.by_power_of_two[3] == 176e12);
  CHECK(h200.grouped_conv.forward.by_power_of_two[4] == h100.grouped_conv.forward.by_power_of_two[4]);
  // Dense 16-bit convolutions: 680e12 FLOP/s from 128 channels, 4 us more a kernel.
  CHECK(h100.dense_conv.flops_per_second == 680e12);
  CHECK(h100.dense_conv.full_width_channels == 128);
  CHECK(h200.dense_conv.latency_seconds == h100.dense_conv.latency_seconds);
  // The same chip: the fused kernels' arithmetic, the cached rows and
  // attention's rates are the H200's.
  CHECK(h100.erf_seconds == h200.erf_seconds);
  CHECK(h100.exp_seconds == h200.exp_seconds);
  CHECK(h100.cached_row_bytes == h200.cached_row_bytes);
  CHECK(h100.multiprocessors == 132);
  CHECK(h200.multiprocessors == 132);
  CHECK(h100.attention.forward.rate_d64 == h200.attention.forward.rate_d64);
  CHECK(h100.attention.causal_backward.s0 == h200.attention.causal_backward.s0);
  for (const char* name : {"a100", "h200-measured", "2e12", "2e12:400e12"}) {
    CAPTURE(name);
    CHECK(pt::parse_device(name).memory_efficiency == 1);
    CHECK(pt::parse_device(name).matmul_efficiency == 1);
    CHECK(pt::parse_device(name).conv_efficiency == 1);
    CHECK(pt::parse_device(name).depthwise.forward.flops_fraction == 1);
    CHECK(pt::parse_device(name).depthwise.weight_gradient.bandwidth_fraction == 1);
    CHECK_FALSE(pt::parse_device(name).narrow_conv.measured());
    CHECK_FALSE(pt::parse_device(name).grouped_conv.measured());
    CHECK_FALSE(pt::parse_device(name).dense_conv.measured());
    CHECK(pt::parse_device(name).column_reduction.row_overhead_bytes == 0);
    CHECK(pt::parse_device(name).fp32_matmul_rate_fraction() == 1);
    CHECK(pt::parse_device(name).kernel_latency_seconds == 0);
    CHECK(pt::parse_device(name).matmul_latency_seconds == 0);
    CHECK(pt::parse_device(name).multiprocessors == 0);
  }
}

TEST_CASE("h200-measured: what an H200 achieved (docs/bandwidth_model.md)") {
  const pt::Device d = pt::parse_device("h200-measured");
  CHECK(d.bytes_per_second == 4.2e12);
  CHECK(d.flops_per_second == 616e12);
  CHECK(d.fp32_flops_per_second == 300e12);
}

TEST_CASE("a number is a bandwidth in bytes per second, with an optional peak FLOP/s") {
  const pt::Device d = pt::parse_device("2e12");
  CHECK(d.name == "2e12");
  CHECK(d.bytes_per_second == 2e12);
  CHECK(d.flops_per_second == 989e12);
  CHECK(pt::parse_device("2e12:400e12").flops_per_second == 400e12);
  for (const char* bad : {"", "b200", "-1", "0", "1e12:", "1e12:x", "inf"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(pt::parse_device(bad), pt::SettingsError);
  }
}

TEST_CASE("bandwidth options are set by name; unknown keys and bad values are settings errors") {
  pt::BandwidthOptions o;
  pt::set_bandwidth_assignment(o, "indexing_reads_selection=false");
  CHECK_FALSE(o.indexing_reads_selection);
  pt::set_bandwidth_assignment(o, "join_search_limit=10");
  pt::set_bandwidth_assignment(o, "realize_reused_values=false");
  CHECK_FALSE(o.realize_reused_values);
  pt::set_bandwidth_assignment(o, "apply_device_efficiency=off");
  CHECK_FALSE(o.apply_device_efficiency);
  pt::set_bandwidth_assignment(o, "sources_live_to_readers=false");
  pt::set_bandwidth_assignment(o, "write_in_place=0");
  CHECK_FALSE(o.sources_live_to_readers);
  CHECK_FALSE(o.write_in_place);
  CHECK(o.join_search_limit == 10);
  CHECK_THROWS_AS(pt::set_bandwidth_assignment(o, "fuse_everything=true"), pt::SettingsError);
  CHECK_THROWS_AS(pt::set_bandwidth_assignment(o, "reductions_end_kernels=maybe"), pt::SettingsError);
  CHECK_THROWS_AS(pt::set_bandwidth_assignment(o, "join_search_limit"), pt::SettingsError);
}
