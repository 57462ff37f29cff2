#include "graph/semantic_check.h"

#include <string>

#include "graph/errors.h"
#include "graph/printable.h"

namespace pt {

namespace {

[[noreturn]] void fail(const Graph& g, NodeId id, const std::string& field, const std::string& what) {
  throw InputError(g.source + ": node '" + printable(g[id].name) + "': " + field + " " + what);
}

std::string_view value_kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::Absent: return "no val";
    case ValueKind::Tensor: return "a tensor";
    case ValueKind::Tuple: return "a tuple";
    case ValueKind::Sym: return "a symbol";
    case ValueKind::None: return "none";
    case ValueKind::Opaque: return "an opaque object";
  }
  return "?";
}

std::string_view value_case_name(proto::Value::KindCase kind) {
  switch (kind) {
    case proto::Value::kTensor: return value_kind_name(ValueKind::Tensor);
    case proto::Value::kTuple: return value_kind_name(ValueKind::Tuple);
    case proto::Value::kSym: return value_kind_name(ValueKind::Sym);
    case proto::Value::kNone: return value_kind_name(ValueKind::None);
    case proto::Value::kOpaque: return value_kind_name(ValueKind::Opaque);
    case proto::Value::KIND_NOT_SET: break;
  }
  return "nothing";
}

std::string_view arg_kind_name(proto::Arg::KindCase kind) {
  switch (kind) {
    case proto::Arg::kNode: return "a node reference";
    case proto::Arg::kInt: return "an int";
    case proto::Arg::kFloat: return "a float";
    case proto::Arg::kBool: return "a bool";
    case proto::Arg::kStr: return "a str";
    case proto::Arg::kNone: return "none";
    case proto::Arg::kList: return "a list";
    case proto::Arg::kDtype: return "a dtype";
    case proto::Arg::kDevice: return "a device";
    case proto::Arg::kRepr: return "a repr";
    case proto::Arg::KIND_NOT_SET: break;
  }
  return "nothing";
}

bool is_getitem(const Node& n) { return n.op == OpKind::CallFunction && n.packet == "operator.getitem"; }

}  // namespace

void GetitemFacts::add(NodeId id, const Node& n, const proto::Node& pn) {
  if (n.value_kind == ValueKind::Tuple) {
    std::vector<proto::Value::KindCase>& kinds = tuple_items_[id];
    kinds.clear();
    for (const proto::Value& item : pn.val().tuple().items()) kinds.push_back(item.kind_case());
  }
  if (!is_getitem(n)) return;
  Getitem f;
  f.id = id;
  f.args = pn.args_size();
  f.kwargs = static_cast<int>(pn.kwargs().size());
  if (f.args > 0) f.source = pn.args(0).kind_case();
  if (f.args > 1) {
    f.index = pn.args(1).kind_case();
    f.item = pn.args(1).int_();
  }
  f.val = pn.val().kind_case();
  getitems_.push_back(f);
}

void check_getitems(const Graph& g, const GetitemFacts& facts) {
  for (const GetitemFacts::Getitem& f : facts.getitems_) {
    const NodeId id = f.id;
    if (f.args != 2 || f.kwargs != 0) {
      fail(g, id, "args", "has " + std::to_string(f.args) + " entries and " + std::to_string(f.kwargs) +
                              " kwargs; operator.getitem takes two args (a tuple and an item index)");
    }
    if (f.source != proto::Arg::kNode) {
      fail(g, id, "args[0]", "is " + std::string(arg_kind_name(f.source)) + "; operator.getitem reads a node's tuple");
    }
    // Validation resolved it: the node's first positional input.
    const NodeId from = g[id].positional_inputs.front();
    const Node& tuple = g[from];
    if (tuple.value_kind != ValueKind::Tuple) {
      fail(g, id, "args[0].node",
           "= '" + printable(tuple.name) + "' whose val is " + std::string(value_kind_name(tuple.value_kind)) +
               ", not a tuple (operator.getitem reads an item of a multi-output op; tensors are indexed by aten ops)");
    }
    if (f.index != proto::Arg::kInt) {
      fail(g, id, "args[1]", "is " + std::string(arg_kind_name(f.index)) + "; the item index is an int");
    }
    const std::vector<proto::Value::KindCase>& kinds = facts.tuple_items_.at(from);
    const int items = static_cast<int>(kinds.size());
    if (f.item < 0 || f.item >= items) {
      const std::string range = items == 0 ? "an empty tuple" : std::to_string(items) + " items, indices 0 to " +
                                                                     std::to_string(items - 1);
      fail(g, id, "args[1].int", "= " + std::to_string(f.item) + " is outside the tuple of '" +
                                     printable(tuple.name) + "' (" + range + ")");
    }
    // The getitem's value is the item it reads.
    const proto::Value::KindCase item = kinds[static_cast<size_t>(f.item)];
    if (item != f.val) {
      fail(g, id, "val", "is " + std::string(value_kind_name(g[id].value_kind)) + " but item " +
                             std::to_string(f.item) + " of '" + printable(tuple.name) + "' is " +
                             std::string(value_case_name(item)));
    }
  }
}

void check_gradient_outputs(const Graph& g) {
  const auto outputs = static_cast<int64_t>(g.outputs.size());
  const int64_t gradients = outputs - g.num_fwd_outputs;
  const auto primals = static_cast<int64_t>(g.primals.size());
  if (gradients != primals) {
    fail(g, g.output_node(), "args",
         "holds " + std::to_string(gradients) + " gradients (" + std::to_string(outputs) +
             " outputs after num_fwd_outputs = " + std::to_string(g.num_fwd_outputs) + ") but the graph has " +
             std::to_string(primals) + " primal inputs (a joint graph returns one gradient, or none, per primal)");
  }
}

}  // namespace pt
