// Appends FX-style nodes to a joint graph message: PyTorch-style unique
// names (mul, mul_1, ...), tensor values, the operator tags of each target,
// and the current scope (partitioner_tag, module path, checkpoint region).
// Deterministic: the same calls produce the same message.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "generate/tensor_type.h"
#include "graph/schema.h"

namespace pt::gen {

using Ref = int32_t;  // index of a node in the message

// One argument of a call: a node, a constant, or a list.
struct Arg {
  enum class Kind { Node, Int, Float, Bool, None, Dtype, Device, Repr, Ints, Nodes };
  Kind kind;
  Ref node = -1;
  int64_t i = 0;
  double f = 0;
  std::string text;
  Dims ints;
  std::vector<Ref> nodes;

  Arg(Ref r) : kind(Kind::Node), node(r) {}  // NOLINT: implicit, so calls read like Python
  static Arg of_int(int64_t v) { Arg a(Kind::Int); a.i = v; return a; }
  static Arg of_float(double v) { Arg a(Kind::Float); a.f = v; return a; }
  static Arg of_bool(bool v) { Arg a(Kind::Bool); a.i = v; return a; }
  static Arg none() { return Arg(Kind::None); }
  static Arg dtype(std::string name) { Arg a(Kind::Dtype); a.text = std::move(name); return a; }
  static Arg device(std::string name) { Arg a(Kind::Device); a.text = std::move(name); return a; }
  static Arg repr(std::string text) { Arg a(Kind::Repr); a.text = std::move(text); return a; }
  static Arg of_ints(Dims v) { Arg a(Kind::Ints); a.ints = std::move(v); return a; }
  static Arg of_nodes(std::vector<Ref> v) { Arg a(Kind::Nodes); a.nodes = std::move(v); return a; }

 private:
  explicit Arg(Kind k) : kind(k) {}
};

using Kwargs = std::vector<std::pair<std::string, Arg>>;

// Where the next nodes belong.
struct Scope {
  std::string partitioner_tag;  // is_forward, is_backward, or empty
  std::string module_path;
  std::string recompute;        // checkpoint policy, empty outside a region
  int64_t ac_graph_id = -1;     // with recompute
  // Inside a region: matmuls (mm, bmm, addmm) are MUST_SAVE instead.
  bool save_matmuls = false;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(proto::Graph& graph) : g_(graph) {}

  void set_scope(Scope s) { scope_ = std::move(s); }
  const Scope& scope() const { return scope_; }

  Ref placeholder(const std::string& name, TensorType t);
  // call_function node with a tensor value.
  Ref call(std::string_view target, std::initializer_list<Arg> args, TensorType out, Kwargs kwargs = {});
  // call_function node returning a tuple of tensors; read it with getitem.
  Ref call_tuple(std::string_view target, std::initializer_list<Arg> args, std::vector<TensorType> outs,
                 Kwargs kwargs = {});
  Ref getitem(Ref tuple, int index);
  // The output node: `outputs` flattened, kNone entries (-1) written as none.
  void output(const std::vector<Ref>& outputs);

  const TensorType& type(Ref r) const { return types_[static_cast<size_t>(r)]; }

 private:
  std::string fresh_name(std::string_view base);
  proto::Node* add_node(const std::string& name, std::string_view op, std::string_view target);
  void set_args(proto::Node* n, std::initializer_list<Arg> args, const Kwargs& kwargs);

  proto::Graph& g_;
  Scope scope_;
  std::vector<TensorType> types_;  // per node; tuple nodes hold their items below
  std::unordered_map<Ref, std::vector<TensorType>> tuple_items_;
  std::unordered_map<std::string, int64_t> name_counts_;
};

inline constexpr Ref kNone = -1;

}  // namespace pt::gen
