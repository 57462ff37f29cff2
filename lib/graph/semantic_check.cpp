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

std::string_view value_case_name(const proto::Value& v) {
  switch (v.kind_case()) {
    case proto::Value::kTensor: return value_kind_name(ValueKind::Tensor);
    case proto::Value::kTuple: return value_kind_name(ValueKind::Tuple);
    case proto::Value::kSym: return value_kind_name(ValueKind::Sym);
    case proto::Value::kNone: return value_kind_name(ValueKind::None);
    case proto::Value::kOpaque: return value_kind_name(ValueKind::Opaque);
    case proto::Value::KIND_NOT_SET: break;
  }
  return "nothing";
}

std::string_view arg_kind_name(const proto::Arg& a) {
  switch (a.kind_case()) {
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

// The records check_getitem reads, decoded into messages reused getitem
// after getitem. A multi-output op's getitems follow it one after another,
// so its record is decoded once for all of them.
struct GetitemRecords {
  proto::Node getitem;
  proto::Node source;
  NodeId source_id = kNoNode;
};

void check_getitem(const Graph& g, NodeId id, GetitemRecords& records) {
  g.record_into(id, records.getitem);
  const proto::Node& pn = records.getitem;
  if (pn.args_size() != 2 || !pn.kwargs().empty()) {
    fail(g, id, "args", "has " + std::to_string(pn.args_size()) + " entries and " +
                            std::to_string(pn.kwargs().size()) +
                            " kwargs; operator.getitem takes two args (a tuple and an item index)");
  }
  const proto::Arg& source = pn.args(0);
  if (source.kind_case() != proto::Arg::kNode) {
    fail(g, id, "args[0]", "is " + std::string(arg_kind_name(source)) + "; operator.getitem reads a node's tuple");
  }
  // Validation resolved it: the node's first positional input.
  const NodeId from = g[id].positional_inputs.front();
  const Node& tuple = g[from];
  if (tuple.value_kind != ValueKind::Tuple) {
    fail(g, id, "args[0].node",
         "= '" + printable(tuple.name) + "' whose val is " + std::string(value_kind_name(tuple.value_kind)) +
             ", not a tuple (operator.getitem reads an item of a multi-output op; tensors are indexed by aten ops)");
  }
  const proto::Arg& index = pn.args(1);
  if (index.kind_case() != proto::Arg::kInt) {
    fail(g, id, "args[1]", "is " + std::string(arg_kind_name(index)) + "; the item index is an int");
  }
  if (records.source_id != from) {
    g.record_into(from, records.source);
    records.source_id = from;
  }
  const proto::Node& from_record = records.source;
  const int items = from_record.val().tuple().items_size();
  if (index.int_() < 0 || index.int_() >= items) {
    const std::string range = items == 0 ? "an empty tuple" : std::to_string(items) + " items, indices 0 to " +
                                                                   std::to_string(items - 1);
    fail(g, id, "args[1].int", "= " + std::to_string(index.int_()) + " is outside the tuple of '" +
                                   printable(tuple.name) + "' (" + range + ")");
  }
  // The getitem's value is the item it reads.
  const proto::Value& item = from_record.val().tuple().items(static_cast<int>(index.int_()));
  if (item.kind_case() != pn.val().kind_case()) {
    fail(g, id, "val", "is " + std::string(value_kind_name(g[id].value_kind)) + " but item " +
                           std::to_string(index.int_()) + " of '" + printable(tuple.name) + "' is " +
                           std::string(value_case_name(item)));
  }
}

}  // namespace

void check_getitems(const Graph& g) {
  GetitemRecords records;
  for (NodeId id = 0; id < g.size(); ++id) {
    if (g[id].op == OpKind::CallFunction && g[id].packet == "operator.getitem") check_getitem(g, id, records);
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
