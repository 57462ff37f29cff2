#include "analysis/runtime_estimate.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "analysis/flop_formulas.h"
#include "graph/errors.h"
#include "graph/printable.h"

namespace pt {

namespace {

using flops::Shape;

// Reads one node's arguments the way FlopCounterMode sees them.
class ArgReader {
 public:
  ArgReader(const Graph& g, NodeId id) : g_(g), id_(id), pn_(g.record(id)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(g_.source + ": node '" + printable(pn_.name()) + "': FLOP count: " + what);
  }

  // The node a reference names: one of this node's inputs (validation makes
  // every reference one), compared by name among those few, not looked up
  // in the graph's name index; at 10^6 nodes each lookup missed the cache
  // at its slot and at the name's bytes, 2-3 per matmul costed. The index
  // remains the fallback.
  NodeId resolve(std::string_view name) const {
    for (NodeId in : g_[id_].inputs) {
      if (g_[in].name == name) return in;
    }
    return g_.find(name);
  }

  // The argument at schema position `index`, else the keyword `name`; null when absent.
  const proto::Arg* arg(int index, std::string_view name) const {
    if (index < pn_.args_size()) return &pn_.args(index);
    return find_kwarg(pn_, name);
  }

  bool is_none(int index, std::string_view name) const {
    const proto::Arg* a = arg(index, name);
    return !a || a->kind_case() == proto::Arg::kNone;
  }

  Shape tensor(int index, std::string_view name) const {
    const proto::Arg* a = arg(index, name);
    if (!a || a->kind_case() != proto::Arg::kNode) fail("argument '" + std::string(name) + "' is not a node");
    const NodeId src = resolve(a->node());
    if (src == kNoNode) fail("argument '" + std::string(name) + "' names unknown node '" + printable(a->node()) + "'");
    const proto::Node src_record = g_.record(src);
    const proto::Value& v = src_record.val();
    if (v.kind_case() != proto::Value::kTensor) {
      fail("argument '" + std::string(name) + "' ('" + std::string(a->node()) + "') is not a tensor");
    }
    const auto& shape = v.tensor().shape();
    return Shape(shape.begin(), shape.end());
  }

  // An int argument: a literal, or a symbolic int node at its hint.
  int64_t integer(int index, std::string_view name) const {
    const proto::Arg* a = arg(index, name);
    if (a && a->kind_case() == proto::Arg::kInt) return a->int_();
    if (a && a->kind_case() == proto::Arg::kNode) {
      const NodeId src = resolve(a->node());
      if (src != kNoNode) {
        const proto::Node src_record = g_.record(src);
        if (src_record.val().kind_case() == proto::Value::kSym) return src_record.val().sym().hint();
      }
    }
    fail("argument '" + std::string(name) + "' is not an integer");
  }

  // Python truthiness after estimate_runtime's materialization (a SymBool
  // becomes True, a SymInt its hint, a SymFloat 1.0); false when absent.
  bool truthy(const proto::Arg* a, std::string_view name) const {
    if (!a) return false;
    switch (a->kind_case()) {
      case proto::Arg::kBool: return a->bool_();
      case proto::Arg::kInt: return a->int_() != 0;
      case proto::Arg::kFloat: return a->float_() != 0;
      case proto::Arg::kNone: return false;
      case proto::Arg::kNode: {
        const NodeId src = resolve(a->node());
        if (src != kNoNode) {
          const proto::Node src_record = g_.record(src);
          if (src_record.val().kind_case() == proto::Value::kSym) {
            const auto& sym = src_record.val().sym();
            return sym.kind() == "int" ? sym.hint() != 0 : true;
          }
        }
        break;
      }
      default: break;
    }
    fail("argument '" + std::string(name) + "' has no truth value");
  }

  bool flag(int index, std::string_view name) const { return truthy(arg(index, name), name); }

  // One entry of a list argument such as output_mask; false past its end.
  bool list_flag(int index, std::string_view name, int item) const {
    const proto::Arg* a = arg(index, name);
    if (!a || a->kind_case() != proto::Arg::kList) fail("argument '" + std::string(name) + "' is not a list");
    if (item >= a->list().items_size()) return false;
    return truthy(&a->list().items(item), name);
  }

  // The node's own output: its tensor, or item `item` of its tuple.
  std::optional<Shape> output(int item = -1) const {
    const proto::Value* v = &pn_.val();
    if (item >= 0) {
      if (v->kind_case() != proto::Value::kTuple || item >= v->tuple().items_size()) return std::nullopt;
      v = &v->tuple().items(item);
    }
    if (v->kind_case() != proto::Value::kTensor) return std::nullopt;
    const auto& shape = v->tensor().shape();
    return Shape(shape.begin(), shape.end());
  }

 private:
  const Graph& g_;
  const NodeId id_;
  const proto::Node pn_;  // the node's record, decoded once
};

// Schema positions of the fused attention kernels' nested-tensor arguments.
struct FusedAttention {
  bool backward;
  bool flash;  // flash: 3-D nested query [total, h, d]; efficient: 4-D [1, total, h, d]
  int cum_q, cum_k, max_q, max_k;
  const char *cum_q_name, *cum_k_name, *max_q_name, *max_k_name;
};

flops::FlopCount fused_attention(const ArgReader& r, const FusedAttention& f) {
  const int first = f.backward ? 1 : 0;  // backward ops take grad_out first
  const Shape q = r.tensor(first, "query");
  const Shape k = r.tensor(first + 1, "key");
  const Shape v = r.tensor(first + 2, "value");
  auto count = [&](const Shape& qs, const Shape& ks, const Shape& vs) {
    return f.backward ? flops::sdpa_backward(qs, qs, ks, vs) : flops::sdpa(qs, ks, vs);
  };
  if (r.is_none(f.cum_q, f.cum_q_name)) {
    if (!f.backward) return flops::sdpa(q, k, v);
    return flops::sdpa_backward(r.tensor(0, "grad_out"), q, k, v);
  }
  // Nested: one [1, heads, max_len, dim] problem per sequence.
  const size_t rank = f.flash ? 3 : 4;
  if (q.size() != rank || k.size() != rank || v.size() != rank) {
    r.fail("nested attention inputs must be " + std::to_string(rank) + "-D");
  }
  auto sequences = [&](int index, const char* name) -> uint64_t {
    const Shape offsets = r.tensor(index, name);
    if (offsets.empty()) r.fail(std::string(name) + " is 0-D");
    return offsets[0] > 0 ? static_cast<uint64_t>(offsets[0] - 1) : 0;
  };
  const uint64_t n = std::min(sequences(f.cum_q, f.cum_q_name), sequences(f.cum_k, f.cum_k_name));
  const int64_t max_q = r.integer(f.max_q, f.max_q_name);
  const int64_t max_k = r.integer(f.max_k, f.max_k_name);
  const size_t h = rank - 2, d = rank - 1;
  const flops::FlopCount each = count({1, q[h], max_q, q[d]}, {1, k[h], max_k, k[d]}, {1, v[h], max_k, v[d]});
  flops::FlopCount total;
  if (__builtin_mul_overflow(each, flops::FlopCount{n}, &total)) throw std::overflow_error("FLOP count exceeds 2^128");
  return total;
}

flops::FlopCount count(const ArgReader& r, std::string_view packet) {
  if (packet == "aten.mm" || packet == "aten._scaled_mm") return flops::mm(r.tensor(0, "self"), r.tensor(1, "mat2"));
  if (packet == "aten.addmm") return flops::mm(r.tensor(1, "mat1"), r.tensor(2, "mat2"));
  if (packet == "aten.bmm") return flops::bmm(r.tensor(0, "self"), r.tensor(1, "mat2"));
  if (packet == "aten.baddbmm") return flops::bmm(r.tensor(1, "batch1"), r.tensor(2, "batch2"));
  if (packet == "aten.convolution" || packet == "aten._convolution" || packet == "aten.cudnn_convolution" ||
      packet == "aten._slow_conv2d_forward") {
    const char* arg6 = packet == "aten.cudnn_convolution" ? "benchmark" : "transposed";
    const bool transposed = packet != "aten._slow_conv2d_forward" && r.flag(6, arg6);
    const auto out = r.output();
    if (!out) r.fail("output is not a tensor");
    const Shape x = r.tensor(0, packet == "aten.cudnn_convolution" || packet == "aten._slow_conv2d_forward" ? "self" : "input");
    return flops::conv(x, r.tensor(1, "weight"), *out, transposed);
  }
  if (packet == "aten.convolution_backward") {
    return flops::conv_backward(r.tensor(0, "grad_output"), r.tensor(1, "input"), r.tensor(2, "weight"),
                                r.flag(7, "transposed"), r.list_flag(10, "output_mask", 0),
                                r.list_flag(10, "output_mask", 1), r.output(0), r.output(1));
  }
  if (packet == "aten._scaled_dot_product_efficient_attention" ||
      packet == "aten._scaled_dot_product_flash_attention" || packet == "aten._scaled_dot_product_cudnn_attention") {
    return flops::sdpa(r.tensor(0, "query"), r.tensor(1, "key"), r.tensor(2, "value"));
  }
  if (packet == "aten._scaled_dot_product_efficient_attention_backward" ||
      packet == "aten._scaled_dot_product_flash_attention_backward" ||
      packet == "aten._scaled_dot_product_cudnn_attention_backward") {
    const char* grad = packet == "aten._scaled_dot_product_efficient_attention_backward" ? "grad_out_" : "grad_out";
    return flops::sdpa_backward(r.tensor(0, grad), r.tensor(1, "query"), r.tensor(2, "key"), r.tensor(3, "value"));
  }
  if (packet == "aten._flash_attention_forward") {
    return fused_attention(r, {false, true, 3, 4, 5, 6, "cum_seq_q", "cum_seq_k", "max_q", "max_k"});
  }
  if (packet == "aten._efficient_attention_forward") {
    return fused_attention(r, {false, false, 4, 5, 6, 7, "cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q", "max_seqlen_k"});
  }
  if (packet == "aten._flash_attention_backward") {
    return fused_attention(r, {true, true, 6, 7, 8, 9, "cum_seq_q", "cum_seq_k", "max_q", "max_k"});
  }
  if (packet == "aten._efficient_attention_backward") {
    return fused_attention(r, {true, false, 6, 7, 8, 9, "cu_seqlens_q", "cu_seqlens_k", "max_seqlen_q", "max_seqlen_k"});
  }
  return 0;
}

}  // namespace

double count_flops(const Graph& g, NodeId id) {
  const Node& node = g[id];
  if (node.op != OpKind::CallFunction) return 0;
  const ArgReader reader(g, id);
  try {
    return static_cast<double>(count(reader, node.packet));  // rounded once, as Python's float(int)
  } catch (const std::invalid_argument& e) {
    reader.fail(e.what());
  } catch (const std::overflow_error& e) {
    reader.fail(e.what());
  }
}

double count_flops_if_readable(const Graph& g, NodeId id) {
  const Node& node = g[id];
  if (node.op != OpKind::CallFunction) return 0;
  const ArgReader reader(g, id);
  try {
    return static_cast<double>(count(reader, node.packet));
  } catch (const std::invalid_argument&) {
    return 0;
  } catch (const InputError&) {
    return 0;
  } catch (const std::overflow_error& e) {
    reader.fail(e.what());  // too large to count is refused, never shown as 0
  }
}

double estimate_runtime(const Graph& g, NodeId id) {
  const double f = count_flops(g, id);
  return f < 1 ? 1 : f;
}

}  // namespace pt
