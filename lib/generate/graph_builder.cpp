#include "generate/graph_builder.h"

#include <array>
#include <stdexcept>

namespace pt::gen {

namespace {

constexpr std::array<std::string_view, 3> kPointwiseTags{"core", "pointwise", "pt2_compliant_tag"};
constexpr std::array<std::string_view, 3> kReductionTags{"core", "pt2_compliant_tag", "reduction"};
constexpr std::array<std::string_view, 2> kCoreTags{"core", "pt2_compliant_tag"};

constexpr std::string_view kPointwiseTargets[] = {
    "aten.add.Tensor", "aten.sub.Tensor",  "aten.mul.Tensor",  "aten.div.Tensor", "aten.rsqrt.default",
    "aten.tanh.default", "aten.exp.default", "aten.log.default", "aten.neg.default", "aten.where.self",
    "aten.ne.Scalar",  "aten.eq.Scalar",
};
constexpr std::string_view kReductionTargets[] = {"aten.sum.dim_IntList", "aten.amax.default", "aten.mean.default"};

template <class Range>
bool contains(const Range& r, std::string_view s) {
  for (std::string_view x : r) {
    if (x == s) return true;
  }
  return false;
}

// The operator tags PyTorch reports for the targets the generator emits.
void add_op_tags(proto::Node* n, std::string_view target) {
  auto add = [n](const auto& tags) {
    for (std::string_view t : tags) n->add_op_tags(std::string(t));
  };
  if (target == "operator.getitem") return;
  if (target == "prims.convert_element_type.default") return add(std::array<std::string_view, 1>{"pointwise"});
  if (target == "aten.var_mean.correction") return add(std::array<std::string_view, 2>{"pt2_compliant_tag", "reduction"});
  if (target.starts_with("prims.") || target == "aten.split.Tensor") {
    return add(std::array<std::string_view, 1>{"pt2_compliant_tag"});
  }
  if (contains(kPointwiseTargets, target)) return add(kPointwiseTags);
  if (contains(kReductionTargets, target)) return add(kReductionTags);
  add(kCoreTags);
}

// "aten.convert_element_type.default" -> "convert_element_type": FX names a
// node after its operator.
std::string_view base_name(std::string_view target) {
  const auto first = target.find('.');
  if (first == std::string_view::npos) return target;
  const auto rest = target.substr(first + 1);
  const auto dot = rest.find('.');
  return dot == std::string_view::npos ? rest : rest.substr(0, dot);
}

void write_tensor(proto::TensorMeta* m, const TensorType& t) {
  for (int64_t d : t.shape) m->add_shape(d);
  for (int64_t s : t.stride) m->add_stride(s);
  m->set_dtype(t.dtype);
  m->set_device("cuda:0");
}

void write_arg(proto::Arg* a, const Arg& v, const proto::Graph& g) {
  switch (v.kind) {
    case Arg::Kind::Node: a->set_node(g.nodes(v.node).name()); break;
    case Arg::Kind::Int: a->set_int_(v.i); break;
    case Arg::Kind::Float: a->set_float_(v.f); break;
    case Arg::Kind::Bool: a->set_bool_(v.i != 0); break;
    case Arg::Kind::None: a->set_none(true); break;
    case Arg::Kind::Dtype: a->set_dtype(v.text); break;
    case Arg::Kind::Device: a->set_device(v.text); break;
    case Arg::Kind::Repr: a->set_repr(v.text); break;
    case Arg::Kind::Ints:
      a->mutable_list();  // an empty list is still a list
      for (int64_t x : v.ints) a->mutable_list()->add_items()->set_int_(x);
      break;
    case Arg::Kind::Nodes:
      a->mutable_list();
      for (Ref r : v.nodes) a->mutable_list()->add_items()->set_node(g.nodes(r).name());
      break;
  }
}

}  // namespace

std::string GraphBuilder::fresh_name(std::string_view base) {
  int64_t& count = name_counts_[std::string(base)];
  std::string name(base);
  if (count > 0) name += "_" + std::to_string(count);
  ++count;
  return name;
}

proto::Node* GraphBuilder::add_node(const std::string& name, std::string_view op, std::string_view target) {
  proto::Node* n = g_.add_nodes();
  n->set_name(name);
  n->set_op(std::string(op));
  n->set_target(std::string(target));
  n->set_partitioner_tag(scope_.partitioner_tag);
  n->set_module_path(scope_.module_path);
  if (op == "call_function" && !scope_.recompute.empty()) {
    const bool matmul = target == "aten.mm.default" || target == "aten.bmm.default" || target == "aten.addmm.default";
    n->set_recompute(scope_.save_matmuls && matmul ? "MUST_SAVE" : scope_.recompute);
    n->set_ac_graph_id(scope_.ac_graph_id);
  }
  return n;
}

void GraphBuilder::set_args(proto::Node* n, std::initializer_list<Arg> args, const Kwargs& kwargs) {
  for (const Arg& a : args) write_arg(n->add_args(), a, g_);
  for (const auto& [key, a] : kwargs) write_arg(&(*n->mutable_kwargs())[key], a, g_);
}

Ref GraphBuilder::placeholder(const std::string& name, TensorType t) {
  proto::Node* n = add_node(name, "placeholder", name);
  n->clear_module_path();
  write_tensor(n->mutable_val()->mutable_tensor(), t);
  types_.push_back(std::move(t));
  return static_cast<Ref>(types_.size() - 1);
}

Ref GraphBuilder::call(std::string_view target, std::initializer_list<Arg> args, TensorType out, Kwargs kwargs) {
  proto::Node* n = add_node(fresh_name(base_name(target)), "call_function", target);
  set_args(n, args, kwargs);
  add_op_tags(n, target);
  write_tensor(n->mutable_val()->mutable_tensor(), out);
  types_.push_back(std::move(out));
  return static_cast<Ref>(types_.size() - 1);
}

Ref GraphBuilder::call_tuple(std::string_view target, std::initializer_list<Arg> args, std::vector<TensorType> outs,
                             Kwargs kwargs) {
  proto::Node* n = add_node(fresh_name(base_name(target)), "call_function", target);
  set_args(n, args, kwargs);
  add_op_tags(n, target);
  auto* tuple = n->mutable_val()->mutable_tuple();
  for (const TensorType& t : outs) write_tensor(tuple->add_items()->mutable_tensor(), t);
  types_.push_back({});
  const auto id = static_cast<Ref>(types_.size() - 1);
  tuple_items_.emplace(id, std::move(outs));
  return id;
}

Ref GraphBuilder::getitem(Ref tuple, int index) {
  const auto it = tuple_items_.find(tuple);
  if (it == tuple_items_.end()) throw std::logic_error("getitem of a node that is not a tuple");
  return call("operator.getitem", {tuple, Arg::of_int(index)}, it->second.at(static_cast<size_t>(index)));
}

void GraphBuilder::output(const std::vector<Ref>& outputs) {
  proto::Node* n = add_node("output", "output", "output");
  n->clear_partitioner_tag();
  n->clear_module_path();
  auto* list = n->add_args()->mutable_list();
  for (Ref r : outputs) {
    if (r == kNone) list->add_items()->set_none(true);
    else list->add_items()->set_node(g_.nodes(r).name());
  }
}

}  // namespace pt::gen
