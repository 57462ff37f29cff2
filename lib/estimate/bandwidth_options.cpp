#include "estimate/bandwidth_options.h"

#include <charconv>

#include "graph/errors.h"

namespace pt {

namespace {

bool parse_bool(std::string_view key, std::string_view value) {
  if (value == "true" || value == "1" || value == "on") return true;
  if (value == "false" || value == "0" || value == "off") return false;
  throw SettingsError("bandwidth option " + std::string(key) + " = '" + std::string(value) +
                      "': expected true or false");
}

}  // namespace

void BandwidthOptions::set(std::string_view key, std::string_view value) {
  if (key == "reductions_end_kernels") {
    reductions_end_kernels = parse_bool(key, value);
  } else if (key == "row_reduction_readers_join") {
    row_reduction_readers_join = parse_bool(key, value);
  } else if (key == "recompute_fused_inputs") {
    recompute_fused_inputs = parse_bool(key, value);
  } else if (key == "realize_reused_values") {
    realize_reused_values = parse_bool(key, value);
  } else if (key == "realize_large_expressions") {
    realize_large_expressions = parse_bool(key, value);
  } else if (key == "pad_is_pointwise") {
    pad_is_pointwise = parse_bool(key, value);
  } else if (key == "pointwise_tag_fuses") {
    pointwise_tag_fuses = parse_bool(key, value);
  } else if (key == "pooling_gradients_fuse") {
    pooling_gradients_fuse = parse_bool(key, value);
  } else if (key == "fuse_input_copies") {
    fuse_input_copies = parse_bool(key, value);
  } else if (key == "merge_sibling_kernels") {
    merge_sibling_kernels = parse_bool(key, value);
  } else if (key == "apply_device_efficiency") {
    apply_device_efficiency = parse_bool(key, value);
  } else if (key == "fused_compute_floor") {
    fused_compute_floor = parse_bool(key, value);
  } else if (key == "cached_row_rereads") {
    cached_row_rereads = parse_bool(key, value);
  } else if (key == "sources_live_to_readers") {
    sources_live_to_readers = parse_bool(key, value);
  } else if (key == "write_in_place") {
    write_in_place = parse_bool(key, value);
  } else if (key == "allocate_at_kernel_launch") {
    allocate_at_kernel_launch = parse_bool(key, value);
  } else if (key == "kernels_run_whole") {
    kernels_run_whole = parse_bool(key, value);
  } else if (key == "unroll_small_reductions") {
    unroll_small_reductions = parse_bool(key, value);
  } else if (key == "fills_at_readers") {
    fills_at_readers = parse_bool(key, value);
  } else if (key == "matmul_at_add") {
    matmul_at_add = parse_bool(key, value);
  } else if (key == "padded_buffers") {
    padded_buffers = parse_bool(key, value);
  } else if (key == "reuse_freed_buffers") {
    reuse_freed_buffers = parse_bool(key, value);
  } else if (key == "fuse_scatter_copies") {
    fuse_scatter_copies = parse_bool(key, value);
  } else if (key == "backward_order_from_tangents") {
    backward_order_from_tangents = parse_bool(key, value);
  } else if (key == "split_convolution_backward") {
    split_convolution_backward = parse_bool(key, value);
  } else if (key == "split_reductions") {
    split_reductions = parse_bool(key, value);
  } else if (key == "slice_scatters_fuse") {
    slice_scatters_fuse = parse_bool(key, value);
  } else if (key == "column_reductions_start_kernels") {
    column_reductions_start_kernels = parse_bool(key, value);
  } else if (key == "inductor_layout_optimization") {
    inductor_layout_optimization = parse_bool(key, value);
  } else if (key == "nchw_layout_conversions") {
    nchw_layout_conversions = parse_bool(key, value);
  } else if (key == "nchw_misaligned_gemms") {
    nchw_misaligned_gemms = parse_bool(key, value);
  } else if (key == "recomputed_reductions_read_cold") {
    recomputed_reductions_read_cold = parse_bool(key, value);
  } else if (key == "indexing_reads_selection") {
    indexing_reads_selection = parse_bool(key, value);
  } else if (key == "join_search_limit") {
    int v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || v < 0) {
      throw SettingsError("bandwidth option join_search_limit = '" + std::string(value) +
                          "': expected a non-negative integer");
    }
    join_search_limit = v;
  } else {
    std::string keys;
    for (const auto& k : bandwidth_option_keys()) keys += (keys.empty() ? "" : ", ") + k;
    throw SettingsError("unknown bandwidth option '" + std::string(key) + "'; valid: " + keys);
  }
}

void set_bandwidth_assignment(BandwidthOptions& o, std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    throw SettingsError("bandwidth option '" + std::string(assignment) + "': expected key=value");
  }
  o.set(assignment.substr(0, eq), assignment.substr(eq + 1));
}

std::vector<std::string> bandwidth_option_keys() {
  return {"reductions_end_kernels", "row_reduction_readers_join",  "recompute_fused_inputs",  "realize_reused_values",
          "realize_large_expressions", "pad_is_pointwise",       "merge_sibling_kernels",
          "indexing_reads_selection",  "apply_device_efficiency", "fused_compute_floor",
          "cached_row_rereads",        "sources_live_to_readers", "write_in_place",
          "backward_order_from_tangents", "allocate_at_kernel_launch", "matmul_at_add",
          "padded_buffers",            "reuse_freed_buffers",     "fuse_scatter_copies",
          "pointwise_tag_fuses",       "split_convolution_backward", "join_search_limit",
          "fuse_input_copies",         "split_reductions",        "column_reductions_start_kernels",
          "slice_scatters_fuse",       "kernels_run_whole",       "unroll_small_reductions",
          "fills_at_readers",          "inductor_layout_optimization", "nchw_layout_conversions",
          "recomputed_reductions_read_cold", "pooling_gradients_fuse",
          "nchw_misaligned_gemms"};
}

}  // namespace pt
