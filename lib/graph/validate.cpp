#include "graph/validate.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "graph/errors.h"
#include "graph/graph_io.h"
#include "graph/node_words.h"
#include "graph/printable.h"
#include "graph/semantic_check.h"
#include "graph/value_bytes_limit.h"
#include "graph/value_check.h"

namespace pt {

namespace {

class Validator {
 public:
  Validator(SplitGraph split, const std::string& source, const ValidateOptions& options)
      : header_(*split.header), store_(*split.records), options_(options) {
    g_.header = std::move(split.header);
    g_.records = std::move(split.records);
    g_.packets = packets_;
    g_.by_name = names_;
    g_.source = source;
  }

  Graph run() {
    const int count = store_.size();
    if (count == 0) fail_graph("nodes is empty (a graph needs at least its output node)");
    if (count > options_.max_nodes) {
      fail_graph("nodes has " + std::to_string(count) + " entries, above --max-nodes = " +
                 std::to_string(options_.max_nodes));
    }
    // One pass parses each record once. A node's checks run as soon as it
    // is named, with the names before it known, which is all a valid node
    // refers to. Errors keep the order of a names-first pass: a corrupt
    // record anywhere, then the first bad name, the graph's name, and only
    // then the first node that failed, checked again with every name known
    // (a reference to a later node is told apart from an unknown one).
    names_->reserve(static_cast<size_t>(count));
    g_.nodes.resize(static_cast<size_t>(count));
    std::string name_problem;
    int failed_node = -1;
    for (int i = 0; i < count; ++i) {
      if (!store_.parse(i, scratch_)) throw_invalid_binary(g_.source, header_);
      if (!name_problem.empty()) continue;
      name_problem = add_name(i, scratch_.name());
      if (!name_problem.empty() || failed_node >= 0) continue;
      try {
        add_node(i, scratch_);
      } catch (const InputError&) {
        failed_node = i;
      }
    }
    if (!name_problem.empty()) fail_graph(name_problem);
    if (has_control_character(header_.name())) {
      fail_graph("name = '" + printable(header_.name()) + "' holds a control character (names are one-line identifiers)");
    }
    if (count == 1 && store_.decode(0).op() == "output" && !options_.partition_graph) {
      fail_graph("nodes holds only the output node (no inputs and no ops: nothing to partition)");
    }
    if (failed_node >= 0) {
      store_.decode(failed_node, scratch_);
      add_node(failed_node, scratch_);
      throw std::logic_error("validate: node '" + scratch_.name() + "' failed its checks once, then passed them");
    }
    g_.ref_blocks = refs_.take();
    for (NodeId id = 0; id < count; ++id) {
      if (g_.nodes[static_cast<size_t>(id)].input_kind == InputKind::Primal) g_.primals.push_back(id);
    }
    finish_graph();
    check_getitems(g_, getitems_);
    if (!options_.partition_graph) check_gradient_outputs(g_);
    check_value_bytes_limit(g_);
    return std::move(g_);
  }

 private:
  [[noreturn]] void fail_graph(const std::string& what) const { throw InputError(g_.source + ": " + what); }
  [[noreturn]] void fail(const proto::Node& n, const std::string& field, const std::string& what) const {
    throw InputError(g_.source + ": node '" + printable(n.name()) + "': " + field + " " + what);
  }

  struct TargetInfo {
    std::string_view target, packet;  // pooled
    bool side_effect = false;
  };
  // The pooled target and packet of a target and whether it has side
  // effects, worked out once per distinct target (a few hundred per graph),
  // not per node. The target is pooled because the record it comes from
  // is decoded into a reused message.
  TargetInfo intern_target(const proto::Node& pn, std::string_view target) {
    const NodeId at = seen_targets_.find(target);
    if (at >= 0) return targets_[static_cast<size_t>(at)];
    check_identifier(pn, target, [] { return std::string("target"); });
    TargetInfo info;
    info.target = packets_->intern(target);
    info.packet = packets_->intern(packet_of(target));
    info.side_effect = is_side_effect_packet(info.packet);
    targets_.push_back(info);
    seen_targets_.emplace(info.target, static_cast<NodeId>(targets_.size() - 1));  // views the pool
    return info;
  }

  // Names record k (its name's problem, or "" when it has none). A node's
  // id is its index, so the index is the graph's by_name.
  std::string add_name(int k, std::string_view name) {
    if (name.empty()) return "nodes[" + std::to_string(k) + "].name is empty";
    if (has_control_character(name)) {
      return "nodes[" + std::to_string(k) + "].name = '" + printable(name) +
             "' holds a control character (names are one-line identifiers)";
    }
    // A store validated before keeps its names: a record's name is fixed.
    if (store_.named() == k) store_.add_name(name);
    const auto [first, fresh] = names_->emplace(store_.name(k), k);
    if (!fresh) {
      return "node '" + printable(name) + "': name is not unique (also nodes[" + std::to_string(first) + "])";
    }
    return "";
  }

  void add_node(int index, const proto::Node& pn) {
    const NodeId self = static_cast<NodeId>(index);
    Node& n = g_.nodes[static_cast<size_t>(index)];
    n.name = store_.name(index);
    n.record_index = index;
    const std::optional<OpKind> op = op_kind_of(pn.op());
    if (!op) fail(pn, "op", "= '" + printable(pn.op()) + "' is not one of placeholder, call_function, get_attr, output");
    n.op = *op;

    const bool last = index + 1 == store_.size();
    if (n.op == OpKind::Output && !last) fail(pn, "op", "= 'output' but the output node must be the last node");
    if (n.op != OpKind::Output && last) fail(pn, "op", "= '" + printable(pn.op()) + "' but the last node must be the output node");
    if (n.op == OpKind::CallFunction && pn.target().empty()) fail(pn, "target", "is empty");
    const auto [target, packet, side_effect] = intern_target(pn, pn.target());
    n.target = target;
    n.packet = packet;

    if (n.op == OpKind::Placeholder) n.input_kind = placeholder_input_kind(n.name, n.target);

    inputs_.clear();
    positional_.clear();
    int numbers = 0;  // ints and floats among the args
    // Arguments: positional first, then kwargs by key (pytree-leaf order).
    // The fast walk builds no field names; where it finds a problem the slow
    // walk runs to name the field in the error (it always throws there).
    for (int a = 0; a < pn.args_size(); ++a) {
      const proto::Arg& arg = pn.args(a);
      if (arg.kind_case() == proto::Arg::kNode) {
        // A direct reference is both a positional input and an input.
        const NodeId ref = earlier_node(arg.node(), self);
        if (ref == kNoNode) resolve(pn, "args[" + std::to_string(a) + "].node", arg.node(), self);
        positional_.push_back(ref);
        inputs_.push_back(ref);
        if (a == 0) n.first_arg_is_node = true;
        continue;
      }
      if (!collect_refs(arg, self, &numbers)) walk_arg(pn, arg, "args[" + std::to_string(a) + "]", self);
    }
    n.arg_numbers = static_cast<uint8_t>(std::min(numbers, 255));
    if (!pn.kwargs().empty()) {
      for (const auto& [key, value] : kwargs_by_key(pn)) {
        check_identifier(pn, *key, [] { return std::string("kwargs (a key)"); });
        if (!collect_refs(*value, self)) walk_arg(pn, *value, "kwargs." + printable(*key), self);
      }
    }
    if (const proto::Arg* out = find_kwarg(pn, "out")) n.out_kwarg = out->kind_case() != proto::Arg::kNone;
    n.inputs = refs_.add(inputs_);
    n.positional_inputs = refs_.add(positional_);

    // Value.
    if (pn.has_val()) read_node_value(pn, pn.val(), g_.source, options_.max_nesting, n);
    else if (n.op == OpKind::Placeholder) fail(pn, "val", "is missing (every placeholder needs its value)");
    else if (!may_lack_val(n.op, n.target)) {
      fail(pn, "val", "is missing (only the output node, get_attr nodes and aten._assert_scalar.default may "
                      "lack one, as in PyTorch's partitioner)");
    }

    for (int k = 0; k < pn.op_tags_size(); ++k) {
      const std::string& t = pn.op_tags(k);
      check_identifier(pn, t, [k] { return "op_tags[" + std::to_string(k) + "]"; });
      n.reduction_tag = n.reduction_tag || t == "reduction";
      n.pointwise_tag = n.pointwise_tag || t == "pointwise";
    }
    check_identifier(pn, pn.module_path(), [] { return std::string("module_path"); });
    n.is_mutable = pn.mutable_();
    n.has_backward_hook = pn.has_backward_hook();
    const std::optional<Recompute> recompute = recompute_of(pn.recompute());
    if (!recompute) {
      fail(pn, "recompute", "= '" + printable(pn.recompute()) +
                                "' is not one of MUST_SAVE, PREFER_SAVE, MUST_RECOMPUTE, PREFER_RECOMPUTE");
    }
    n.recompute = *recompute;
    n.has_ac_graph_id = pn.has_ac_graph_id();
    n.ac_graph_id = pn.ac_graph_id();
    n.has_memory_budget = pn.has_memory_budget();
    if (pn.has_memory_budget() && !(pn.memory_budget() >= 0 && pn.memory_budget() <= 1)) {
      fail(pn, "memory_budget", "= " + std::to_string(pn.memory_budget()) + " is outside [0, 1]");
    }
    const std::optional<PartitionerTag> tag = partitioner_tag_of(pn.partitioner_tag());
    if (!tag) {
      fail(pn, "partitioner_tag", "= '" + printable(pn.partitioner_tag()) +
                                      "' is not one of is_forward, is_backward, must_be_in_forward, must_be_in_backward");
    }
    n.tag = *tag;

    // Not impure: ops tagged nondeterministic_seeded. PyTorch's extracted
    // backward graphs drop unused ones (gpt2_dropout_l2: inductor_seeds and
    // the cudnn attention forward are valid there but absent), so its
    // dead-code elimination does not treat them as side effects.
    n.impure = pn.impure() || n.op == OpKind::Placeholder ||
               (n.op == OpKind::CallFunction && (n.is_mutable || side_effect));
    getitems_.add(self, n, pn);
  }

  // Names, targets, keys, tags and paths are one-line identifiers: a
  // control character in one would reach a terminal or a report.
  // `field()` names the field, called only on the way to an error.
  template <typename Field>
  void check_identifier(const proto::Node& pn, std::string_view text, const Field& field) const {
    if (has_control_character(text)) {
      fail(pn, field(), "= '" + printable(text) + "' holds a control character (a one-line identifier)");
    }
  }

  // The node `ref` names when it comes before node `self`, else kNoNode.
  NodeId earlier_node(std::string_view ref, NodeId self) const {
    const NodeId id = names_->find(ref);
    return id != kNoNode && id < self ? id : kNoNode;
  }

  NodeId resolve(const proto::Node& pn, const std::string& field, const std::string& ref, NodeId self) {
    const NodeId id = earlier_node(ref, self);
    if (id != kNoNode) return id;
    if (ref == pn.name()) fail(pn, field, "= '" + printable(ref) + "' refers to the node itself (a cycle)");
    if (names_->contains(ref)) {
      fail(pn, field, "= '" + printable(ref) + "' refers to a later node (nodes must be in topological order; is there a cycle?)");
    }
    fail(pn, field, "= '" + printable(ref) + "' refers to no node in the graph");
  }

  // The fast walk: depth-first over the Arg tree without recursion, appending
  // the node references to inputs_ in order; false at the first problem
  // (walk_arg below then names it). Counts the ints and floats it passes
  // into `numbers` when given.
  bool collect_refs(const proto::Arg& root, NodeId self, int* numbers = nullptr) {
    auto& stack = walk_stack_;
    stack.clear();
    stack.emplace_back(&root, 0);
    while (!stack.empty()) {
      const auto [arg, depth] = stack.back();
      stack.pop_back();
      switch (arg->kind_case()) {
        case proto::Arg::kNode: {
          const NodeId ref = earlier_node(arg->node(), self);
          if (ref == kNoNode) return false;
          inputs_.push_back(ref);
          break;
        }
        case proto::Arg::kList: {
          if (depth >= options_.max_nesting) return false;
          // Pushed in reverse, so the items pop in order.
          const auto& items = arg->list().items();
          for (auto it = items.rbegin(); it != items.rend(); ++it) stack.emplace_back(&*it, depth + 1);
          break;
        }
        case proto::Arg::kInt:
        case proto::Arg::kFloat:
          if (numbers) ++*numbers;
          break;
        case proto::Arg::kDtype:
          if (has_control_character(arg->dtype())) return false;
          break;
        case proto::Arg::kDevice:
          if (has_control_character(arg->device())) return false;
          break;
        case proto::Arg::KIND_NOT_SET: return false;
        default: break;
      }
    }
    return true;
  }

  // The slow walk, over the tree collect_refs refused: the same checks in the
  // same order, with field names; it throws at the problem.
  [[noreturn]] void walk_arg(const proto::Node& pn, const proto::Arg& root, const std::string& root_field,
                             NodeId self) {
    struct Item { const proto::Arg* arg; std::string field; int depth; };
    std::vector<Item> stack{{&root, root_field, 0}};
    while (!stack.empty()) {
      Item item = std::move(stack.back());
      stack.pop_back();
      const proto::Arg& arg = *item.arg;
      switch (arg.kind_case()) {
        case proto::Arg::kNode:
          resolve(pn, item.field + ".node", arg.node(), self);
          break;
        case proto::Arg::kList: {
          if (item.depth >= options_.max_nesting) {
            // The root field: the path to the depth would be a long line.
            fail(pn, root_field, "nests lists deeper than " + std::to_string(options_.max_nesting) +
                                     " levels (the limit for args and values)");
          }
          for (int k = arg.list().items_size() - 1; k >= 0; --k) {
            stack.push_back({&arg.list().items(k), item.field + ".list.items[" + std::to_string(k) + "]",
                             item.depth + 1});
          }
          break;
        }
        case proto::Arg::kDtype:
          check_identifier(pn, arg.dtype(), [&] { return item.field + ".dtype"; });
          break;
        case proto::Arg::kDevice:
          check_identifier(pn, arg.device(), [&] { return item.field + ".device"; });
          break;
        case proto::Arg::KIND_NOT_SET:
          fail(pn, item.field, "has no field set (expected one of node, int, float, bool, str, none, list, dtype, device, repr)");
        default:
          break;
      }
    }
    throw std::logic_error("validate: the fast and the slow argument walks disagree on node '" + pn.name() + "'");
  }

  void finish_graph() {
    const NodeId count = g_.size();
    g_.users = UserLists(g_.nodes);
    // Outputs: the output node's args flattened (pytree leaves).
    store_.decode(count - 1, scratch_);
    const proto::Node& out = scratch_;
    for (const proto::Arg& top : out.args()) {
      std::vector<const proto::Arg*> stack{&top};
      while (!stack.empty()) {
        const proto::Arg& arg = *stack.back();
        stack.pop_back();
        if (arg.kind_case() == proto::Arg::kList) {
          const auto& items = arg.list().items();
          for (auto it = items.rbegin(); it != items.rend(); ++it) stack.push_back(&*it);
        } else if (arg.kind_case() == proto::Arg::kNode) {
          g_.outputs.push_back(names_->find(arg.node()));
        } else {
          g_.outputs.push_back(kNoNode);
        }
      }
    }
    g_.num_fwd_outputs = header_.num_fwd_outputs();
    if (g_.num_fwd_outputs < 0 || g_.num_fwd_outputs > static_cast<int64_t>(g_.outputs.size())) {
      fail_graph("num_fwd_outputs = " + std::to_string(g_.num_fwd_outputs) + " is outside the output list (" +
                 std::to_string(g_.outputs.size()) + " outputs)");
    }
    g_.static_lifetime.assign(count, false);
    for (int k = 0; k < header_.static_lifetime_input_indices_size(); ++k) {
      const int64_t idx = header_.static_lifetime_input_indices(k);
      if (idx < 0 || idx >= static_cast<int64_t>(g_.primals.size())) {
        fail_graph("static_lifetime_input_indices[" + std::to_string(k) + "] = " + std::to_string(idx) +
                   " is not the index of a primal input (there are " + std::to_string(g_.primals.size()) + ")");
      }
      g_.static_lifetime[g_.primals[idx]] = true;
    }
  }

  const proto::Graph& header_;      // kept alive by g_.header
  RecordStore& store_;             // kept alive by g_.records
  proto::Node scratch_;            // the record being checked, decoded
  std::shared_ptr<PacketPool> packets_ = std::make_shared<PacketPool>();
  std::shared_ptr<NameIndex> names_ = std::make_shared<NameIndex>();  // the graph's by_name
  ValidateOptions options_;
  Graph g_;
  // Per-node scratch, reused: the node's reference lists before they are
  // copied into refs_, and collect_refs's stack.
  RefBlockWriter refs_;
  std::vector<NodeId> inputs_, positional_;
  std::vector<std::pair<const proto::Arg*, int>> walk_stack_;
  GetitemFacts getitems_;  // what check_getitems reads of the records
  // The targets seen, with their pooled packets and side-effect flags.
  NameIndex seen_targets_;
  std::vector<TargetInfo> targets_;
};

}  // namespace

Graph validate(SplitGraph graph, const std::string& source, const ValidateOptions& options) {
  return Validator(std::move(graph), source, options).run();
}

Graph validate(std::shared_ptr<const proto::Graph> proto, const std::string& source, const ValidateOptions& options) {
  return validate(split_graph(*proto), source, options);
}

}  // namespace pt
