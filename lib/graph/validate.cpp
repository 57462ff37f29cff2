#include "graph/validate.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "graph/errors.h"
#include "graph/name_hash.h"
#include "graph/name_scan.h"
#include "graph/node_words.h"
#include "graph/ordered_ranges.h"
#include "graph/side_by_side.h"
#include "graph/value_check.h"
#include "graph/printable.h"

namespace pt {

namespace {

class Validator {
 public:
  Validator(GraphRecords graph, const std::string& source, const ValidateOptions& options)
      : records_(graph.nodes), header_(graph.header), options_(options) {
    g_.header = std::move(graph.header);
    g_.records = std::move(graph.nodes);
    g_.packets = packets_;
    g_.by_name = names_;
    g_.source = source;
  }

  Graph run() {
    const auto& pg = *records_;
    const int count = static_cast<int>(pg.size());
    if (count == 0) fail_graph("nodes is empty (a graph needs at least its output node)");
    if (count > options_.max_nodes) {
      fail_graph("nodes has " + std::to_string(count) + " entries, above --max-nodes = " +
                 std::to_string(options_.max_nodes));
    }
    // All names first, so a reference to a later node is told apart from an
    // unknown one; a node's id is its index, so the map is the graph's by_name.
    names_->reserve(static_cast<size_t>(count));
    const NameScan scan = scan_names(pg, options_.threads);
    constexpr int kLookAhead = 8;  // names ahead whose slots are requested early
    for (int i = 0; i < count; ++i) {
      if (i + kLookAhead < count) names_->prefetch(scan.hash[static_cast<size_t>(i + kLookAhead)]);
      const std::string_view name = scan.name[static_cast<size_t>(i)];
      if (name.empty()) fail_graph("nodes[" + std::to_string(i) + "].name is empty");
      if (scan.control[static_cast<size_t>(i)]) {
        fail_graph("nodes[" + std::to_string(i) + "].name = '" + printable(name) +
                   "' holds a control character (names are one-line identifiers)");
      }
      const auto [first, fresh] = names_->emplace(name, i, scan.hash[static_cast<size_t>(i)]);
      if (!fresh) {
        throw InputError(g_.source + ": node '" + printable(name) + "': name is not unique (also nodes[" +
                         std::to_string(first) + "])");
      }
    }
    if (count == 1 && pg.view(0).op() == "output" && !options_.allow_output_only) {
      fail_graph("nodes holds only the output node (no inputs and no ops: nothing to partition)");
    }
    add_nodes(count);
    finish_graph();
    return std::move(g_);
  }

 private:
  [[noreturn]] void fail_graph(const std::string& what) const { throw InputError(g_.source + ": " + what); }
  [[noreturn]] void fail(const NodeFields& n, const std::string& field, const std::string& what) const {
    throw InputError(g_.source + ": node '" + printable(n.name()) + "': " + field + " " + what);
  }

  // Per-thread scratch of add_node: the targets it has seen with their
  // pooled packets (a few hundred per graph: the shared pool's lock is taken
  // once per target and thread) and collect_refs's stack.
  // And its recently converted nodes, direct-mapped by name hash: most
  // references name a node a few before the referring one, whose name it
  // just read, while a lookup in the graph's index (32 MB at 10^6 nodes)
  // missed the cache twice, at its slot and at the name's bytes: 57% of
  // add_node at 10^6 nodes. A hit is checked against the name itself, so it
  // answers what the index would.
  struct RecentName {
    uint64_t hash = 0;
    NodeId id = kNoNode;
  };
  static constexpr size_t kRecentNames = 4096;
  struct Worker {
    NameIndex seen;                               // target -> position in views
    std::vector<std::string_view> views;          // pooled packets of the targets seen
    Flags side_effect;                            // per target seen: is_side_effect_packet(its packet)
    std::vector<std::pair<ArgView, int>> walk_stack;
    std::vector<ArgView> args;                    // the node's args, read once
    std::vector<std::pair<std::string_view, ArgView>> kwargs;  // and its kwargs
    std::vector<RecentName> recent = std::vector<RecentName>(kRecentNames);
    RefBlockWriter* refs = nullptr;               // where the nodes' reference lists go
    std::vector<NodeId> inputs, positional;       // the node's lists, before they are copied there
  };

  // The pooled packet of a target and whether it has side effects, worked
  // out once per distinct target and thread, not once per node.
  std::pair<std::string_view, bool> intern_packet(Worker& w, std::string_view target) {
    const NodeId at = w.seen.find(target);
    if (at >= 0) return {w.views[static_cast<size_t>(at)], w.side_effect[static_cast<size_t>(at)]};
    std::string_view pooled;
    {
      const std::lock_guard lock(packets_mutex_);
      pooled = packets_->intern(packet_of(target));
    }
    const bool side_effect = is_side_effect_packet(pooled);
    w.views.push_back(pooled);
    w.side_effect.push_back(side_effect);
    w.seen.emplace(target, static_cast<NodeId>(w.views.size() - 1));  // views the record, alive while we run
    return {pooled, side_effect};
  }

  // Every node, in index order. Why threads: add_node is 80% of validation;
  // each node reads only its own record and the finished name index. From
  // 2 x ValidateOptions::min_nodes_per_thread nodes (kParallelNodes), up to
  // one range per core (ordered_ranges.h: the error reported is the lowest
  // node's, as in one pass). Sessions 24-25 split from 2,000 nodes
  // (gpt2_124m validate 1.96 -> 1.65 ms then); session 26 measured whole
  // runs slower split below ~20,000 nodes on the same kind of VM
  // (side_by_side.h has the figures). Smaller graphs, or `threads` = 1: one
  // pass here.
  void add_nodes(int count) {
    g_.nodes.resize(static_cast<size_t>(count));
    const unsigned cores = thread_count(options_.threads);
    const auto chunks = static_cast<int>(
        std::clamp<int64_t>(count / std::max<int64_t>(1, options_.min_nodes_per_thread), 1, cores));
    // One reference writer per range, kept here (a deque does not move
    // them) so their blocks outlive the ranges' threads.
    std::deque<RefBlockWriter> writers;
    std::mutex writers_mutex;
    auto make_worker = [&] {
      Worker w;
      const std::lock_guard lock(writers_mutex);
      w.refs = &writers.emplace_back();
      return w;
    };
    for_ranges_in_order(count, chunks, make_worker, [this](int i, Worker& w) { add_node(i, w); });
    for (RefBlockWriter& writer : writers) {
      for (RefBlock& block : writer.take()) g_.ref_blocks.push_back(std::move(block));
    }
    for (NodeId id = 0; id < count; ++id) {
      if (g_.nodes[static_cast<size_t>(id)].input_kind == InputKind::Primal) g_.primals.push_back(id);
    }
  }

  void add_node(int index, Worker& w) {
    const NodeFields pn = records_->fields(static_cast<size_t>(index));
    const NodeId self = static_cast<NodeId>(index);
    Node& n = g_.nodes[static_cast<size_t>(index)];
    n.name = pn.name();
    const uint64_t name_hash_of_self = name_hash(n.name);
    w.recent[name_hash_of_self & (kRecentNames - 1)] = {name_hash_of_self, self};
    n.record_index = index;
    n.target = pn.target();
    const std::optional<OpKind> op = op_kind_of(pn.op());
    if (!op) fail(pn, "op", "= '" + printable(pn.op()) + "' is not one of placeholder, call_function, get_attr, output");
    n.op = *op;

    const bool last = index + 1 == static_cast<int>(records_->size());
    if (n.op == OpKind::Output && !last) fail(pn, "op", "= 'output' but the output node must be the last node");
    if (n.op != OpKind::Output && last) fail(pn, "op", "= '" + printable(pn.op()) + "' but the last node must be the output node");
    if (n.op == OpKind::CallFunction && n.target.empty()) fail(pn, "target", "is empty");
    const auto [packet, side_effect] = intern_packet(w, n.target);
    n.packet = packet;

    if (n.op == OpKind::Placeholder) n.input_kind = placeholder_input_kind(n.name, n.target);

    // The args are read once into the worker's scratch (a view decodes its
    // record as it goes). The reference lists are gathered in the worker's
    // scratch too, then copied into its reference blocks.
    auto& args = w.args;
    args.clear();
    for (const ArgView arg : pn.args()) args.push_back(arg);
    std::vector<NodeId>& inputs = w.inputs;
    std::vector<NodeId>& positional = w.positional;
    inputs.clear();
    positional.clear();
    int numbers = 0;  // ints and floats among the args
    // Arguments: positional first, then kwargs by key (deterministic order).
    // The fast walk builds no field names; where it finds a problem the slow
    // walk runs to name the field in the error (it always throws there).
    for (size_t a = 0; a < args.size(); ++a) {
      const ArgView& arg = args[a];
      if (arg.kind_case() == ArgView::kNode) {
        // A direct reference is both a positional input and an input: one
        // name lookup for the two (resolve throws where it finds none).
        const NodeId ref = earlier_node(arg.node(), self, w);
        if (ref == kNoNode) resolve(pn, "args[" + std::to_string(a) + "].node", std::string(arg.node()), self);
        positional.push_back(ref);
        inputs.push_back(ref);
        if (a == 0) n.first_arg_is_node = true;
        continue;
      }
      if (!collect_refs(arg, self, inputs, w, &numbers)) walk_arg(pn, arg, "args[" + std::to_string(a) + "]", self);
    }
    n.arg_numbers = static_cast<uint8_t>(std::min(numbers, 255));
    // Canonical records list kwargs by key already; a re-encoded one too
    // (deterministic serialization): sorting is a check, not a cost.
    auto& kwargs = w.kwargs;
    kwargs.clear();
    for (const KwargView kv : pn.kwargs()) kwargs.emplace_back(kv.first, kv.second);
    if (!kwargs.empty()) {
      if (!std::is_sorted(kwargs.begin(), kwargs.end(), [](const auto& a, const auto& b) { return a.first < b.first; })) {
        std::sort(kwargs.begin(), kwargs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      }
      for (const auto& [k, v] : kwargs) {
        if (!collect_refs(v, self, inputs, w)) walk_arg(pn, v, "kwargs." + printable(k), self);
      }
    }
    n.inputs = w.refs->add(inputs);
    n.positional_inputs = w.refs->add(positional);

    // Value.
    if (pn.has_val()) read_node_value(pn, pn.val(), g_.source, options_.max_nesting, n);
    else if (n.op == OpKind::Placeholder) fail(pn, "val", "is missing (every placeholder needs its value)");

    for (const std::string_view t : pn.op_tags()) n.reduction_tag = n.reduction_tag || equals_literal(t, "reduction");
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
  }

  // The node `ref` names when it comes before node `self`, else kNoNode.
  NodeId earlier_node(std::string_view ref, NodeId self) const {
    const NodeId id = names_->find(ref);
    return id != kNoNode && id < self ? id : kNoNode;
  }
  // The same answer, first from the worker's recent nodes (written by this
  // thread: their Nodes are this range's).
  NodeId earlier_node(std::string_view ref, NodeId self, const Worker& w) const {
    const uint64_t h = name_hash(ref);
    const RecentName& r = w.recent[h & (kRecentNames - 1)];
    if (r.id != kNoNode && r.hash == h && r.id < self && g_.nodes[static_cast<size_t>(r.id)].name == ref) return r.id;
    const NodeId id = names_->find(ref, h);
    return id != kNoNode && id < self ? id : kNoNode;
  }

  NodeId resolve(const NodeFields& pn, const std::string& field, const std::string& ref, NodeId self) {
    const NodeId id = earlier_node(ref, self);
    if (id != kNoNode) return id;
    if (ref == pn.name()) fail(pn, field, "= '" + printable(ref) + "' refers to the node itself (a cycle)");
    if (names_->contains(ref)) {
      fail(pn, field, "= '" + printable(ref) + "' refers to a later node (nodes must be in topological order; is there a cycle?)");
    }
    fail(pn, field, "= '" + printable(ref) + "' refers to no node in the graph");
  }

  // The fast walk: depth-first over the Arg tree without recursion, appending
  // the node references in order; false at the first problem (walk_arg below
  // then names it).
  // Counts the ints and floats it passes into `numbers` when given.
  bool collect_refs(const ArgView& root, NodeId self, std::vector<NodeId>& out, Worker& w,
                    int* numbers = nullptr) const {
    auto& stack = w.walk_stack;
    stack.clear();
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      const auto [arg, depth] = stack.back();
      stack.pop_back();
      switch (arg.kind_case()) {
        case ArgView::kNode: {
          const NodeId ref = earlier_node(arg.node(), self, w);
          if (ref == kNoNode) return false;
          out.push_back(ref);
          break;
        }
        case ArgView::kList: {
          if (depth >= options_.max_nesting) return false;
          // Pushed in reverse, so the items pop in order.
          const size_t at = stack.size();
          for (const ArgView item : arg.list().items()) stack.emplace_back(item, depth + 1);
          std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(at), stack.end());
          break;
        }
        case ArgView::kInt:
        case ArgView::kFloat:
          if (numbers) ++*numbers;
          break;
        case ArgView::KIND_NOT_SET: return false;
        default: break;
      }
    }
    return true;
  }

  // The slow walk, over the tree collect_refs refused: the same checks in the
  // same order, with field names; it throws at the problem.
  [[noreturn]] void walk_arg(const NodeFields& pn, const ArgView& root, const std::string& root_field, NodeId self) {
    struct Item { ArgView arg; std::string field; int depth; };
    std::vector<Item> stack{{root, root_field, 0}};
    while (!stack.empty()) {
      Item item = std::move(stack.back());
      stack.pop_back();
      const ArgView arg = item.arg;
      switch (arg.kind_case()) {
        case ArgView::kNode:
          resolve(pn, item.field + ".node", std::string(arg.node()), self);
          break;
        case ArgView::kList: {
          if (item.depth >= options_.max_nesting) {
            fail(pn, item.field, "nests lists deeper than " + std::to_string(options_.max_nesting));
          }
          const size_t at = stack.size();
          int k = 0;
          for (const ArgView it : arg.list().items()) {
            stack.push_back({it, item.field + ".list.items[" + std::to_string(k++) + "]", item.depth + 1});
          }
          std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(at), stack.end());
          break;
        }
        case ArgView::KIND_NOT_SET:
          fail(pn, item.field, "has no field set (expected one of node, int, float, bool, str, none, list, dtype, device, repr)");
        default:
          break;
      }
    }
    throw std::logic_error("validate: the fast and the slow argument walks disagree on node '" + std::string(pn.name()) + "'");
  }

  void finish_graph() {
    const auto& pg = *header_;
    const NodeId count = g_.size();
    g_.users = UserLists(g_.nodes);
    // Outputs: the output node's args flattened (pytree leaves).
    const NodeFields out = records_->fields(static_cast<size_t>(count - 1));
    for (const ArgView top : out.args()) {
      std::vector<ArgView> stack{top};
      while (!stack.empty()) {
        const ArgView arg = stack.back();
        stack.pop_back();
        if (arg.kind_case() == ArgView::kList) {
          const size_t at = stack.size();
          for (const ArgView item : arg.list().items()) stack.push_back(item);
          std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(at), stack.end());
        } else if (arg.kind_case() == ArgView::kNode) {
          g_.outputs.push_back(names_->find(arg.node()));
        } else {
          g_.outputs.push_back(kNoNode);
        }
      }
    }
    g_.num_fwd_outputs = pg.num_fwd_outputs();
    if (g_.num_fwd_outputs < 0 || g_.num_fwd_outputs > static_cast<int64_t>(g_.outputs.size())) {
      fail_graph("num_fwd_outputs = " + std::to_string(g_.num_fwd_outputs) + " is outside the output list (" +
                 std::to_string(g_.outputs.size()) + " outputs)");
    }
    g_.static_lifetime.assign(count, false);
    for (int k = 0; k < pg.static_lifetime_input_indices_size(); ++k) {
      const int64_t idx = pg.static_lifetime_input_indices(k);
      if (idx < 0 || idx >= static_cast<int64_t>(g_.primals.size())) {
        fail_graph("static_lifetime_input_indices[" + std::to_string(k) + "] = " + std::to_string(idx) +
                   " is not the index of a primal input (there are " + std::to_string(g_.primals.size()) + ")");
      }
      g_.static_lifetime[g_.primals[idx]] = true;
    }
  }

  std::shared_ptr<const NodeRecords> records_;
  std::shared_ptr<const proto::Graph> header_;
  std::shared_ptr<PacketPool> packets_ = std::make_shared<PacketPool>();
  std::shared_ptr<NameIndex> names_ = std::make_shared<NameIndex>();  // the graph's by_name
  ValidateOptions options_;
  std::mutex packets_mutex_;  // packets_ while add_nodes runs on several threads
  Graph g_;
};

}  // namespace

Graph validate(GraphRecords graph, const std::string& source, const ValidateOptions& options) {
  return Validator(std::move(graph), source, options).run();
}

Graph validate(std::shared_ptr<const proto::Graph> proto, const std::string& source, const ValidateOptions& options) {
  return validate(records_of(*proto, source), source, options);
}

}  // namespace pt
