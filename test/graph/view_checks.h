// Field-by-field comparisons of the record views (graph/node_view.h) with
// the message protobuf parses from the same bytes (doctest checks; a float
// compared bit for bit).
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph_io.h"
#include "graph/node_view.h"

namespace pt::test {

inline void check_arg(const proto::Arg& m, const pt::ArgView& v) {
  REQUIRE(static_cast<int>(v.kind_case()) == static_cast<int>(m.kind_case()));
  CHECK(v.node() == m.node());
  CHECK(v.int_() == m.int_());
  CHECK(v.bool_() == m.bool_());
  CHECK(v.str() == m.str());
  CHECK(v.none() == m.none());
  CHECK(v.dtype() == m.dtype());
  CHECK(v.device() == m.device());
  CHECK(v.repr() == m.repr());
  if (m.kind_case() == proto::Arg::kFloat) {
    const double a = m.float_(), b = v.float_();
    CHECK(std::memcmp(&a, &b, sizeof a) == 0);  // bit for bit (-0.0, NaN payloads)
  }
  if (m.has_list()) {
    REQUIRE(v.list().items_size() == m.list().items_size());
    int k = 0;
    for (const pt::ArgView item : v.list().items()) check_arg(m.list().items(k++), item);
  }
}

inline void check_tensor(const proto::TensorMeta& m, const pt::TensorView& v) {
  CHECK(std::vector<int64_t>(v.shape().begin(), v.shape().end()) == std::vector<int64_t>(m.shape().begin(), m.shape().end()));
  CHECK(std::vector<int64_t>(v.stride().begin(), v.stride().end()) ==
        std::vector<int64_t>(m.stride().begin(), m.stride().end()));
  CHECK(v.shape_size() == m.shape_size());
  CHECK(v.dtype() == m.dtype());
  CHECK(v.device() == m.device());
  REQUIRE(v.shape_expr_size() == m.shape_expr_size());
  int k = 0;
  for (std::string_view e : v.shape_expr()) CHECK(e == m.shape_expr(k++));
  REQUIRE(v.stride_expr_size() == m.stride_expr_size());
  k = 0;
  for (std::string_view e : v.stride_expr()) CHECK(e == m.stride_expr(k++));
  CHECK(v.has_storage() == m.has_storage());
  CHECK(v.storage() == m.storage());
  CHECK(v.storage_offset() == m.storage_offset());
  CHECK(v.storage_offset_expr() == m.storage_offset_expr());
}

inline void check_value(const proto::Value& m, const pt::ValueView& v) {
  REQUIRE(static_cast<int>(v.kind_case()) == static_cast<int>(m.kind_case()));
  if (m.has_tensor()) check_tensor(m.tensor(), v.tensor());
  if (m.has_sym()) {
    CHECK(v.sym().kind() == m.sym().kind());
    CHECK(v.sym().expr() == m.sym().expr());
    CHECK(v.sym().hint() == m.sym().hint());
  }
  CHECK(v.opaque() == m.opaque());
  if (m.has_tuple()) {
    REQUIRE(v.tuple().items_size() == m.tuple().items_size());
    int k = 0;
    for (const pt::ValueView item : v.tuple().items()) check_value(m.tuple().items(k++), item);
  }
}

// Both views of a record read what the message reads.
template <typename View>
void check_node(const proto::Node& m, const View& v) {
  CHECK(v.name() == m.name());
  CHECK(v.op() == m.op());
  CHECK(v.target() == m.target());
  REQUIRE(v.args_size() == m.args_size());
  int k = 0;
  for (const pt::ArgView a : v.args()) check_arg(m.args(k++), a);
  REQUIRE(v.kwargs_size() == m.kwargs_size());
  for (const pt::KwargView kv : v.kwargs()) {
    const auto it = m.kwargs().find(std::string(kv.first));
    REQUIRE(it != m.kwargs().end());
    check_arg(it->second, kv.second);
    REQUIRE(v.kwarg(kv.first).has_value());
  }
  CHECK_FALSE(v.kwarg("no such kwarg").has_value());
  CHECK(v.has_val() == m.has_val());
  if (m.has_val()) check_value(m.val(), v.val());
  std::vector<std::string> tags;
  for (std::string_view t : v.op_tags()) tags.emplace_back(t);
  CHECK(tags == std::vector<std::string>(m.op_tags().begin(), m.op_tags().end()));
  CHECK(v.mutable_() == m.mutable_());
  CHECK(v.recompute() == m.recompute());
  CHECK(v.has_ac_graph_id() == m.has_ac_graph_id());
  CHECK(v.ac_graph_id() == m.ac_graph_id());
  CHECK(v.partitioner_tag() == m.partitioner_tag());
  CHECK(v.module_path() == m.module_path());
  CHECK(v.impure() == m.impure());
  CHECK(v.has_backward_hook() == m.has_backward_hook());
  CHECK(v.has_memory_budget() == m.has_memory_budget());
  CHECK(v.memory_budget() == m.memory_budget());
}

}  // namespace pt::test
