// The in-memory joint graph: flat arrays indexed by NodeId, built once from
// a graph file's validated node records (see validate.h). Every later stage reads it;
// passes that remove nodes return a new Graph (see subgraph.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/flags.h"
#include "graph/name_index.h"
#include "graph/node_refs.h"
#include "graph/packet_pool.h"
#include "graph/record_store.h"
#include "graph/schema.h"

namespace pt {

inline constexpr NodeId kNoNode = -1;

enum class OpKind : uint8_t { Placeholder, CallFunction, GetAttr, Output };
enum class ValueKind : uint8_t { Absent, Tensor, Tuple, Sym, None, Opaque };
enum class SymKind : uint8_t { Int, Float, Bool };
enum class Recompute : uint8_t { None, MustSave, PreferSave, MustRecompute, PreferRecompute };
enum class PartitionerTag : uint8_t { None, IsForward, IsBackward, MustBeInForward, MustBeInBackward };
// What kind of graph input a placeholder is (docs/design.md section 2).
enum class InputKind : uint8_t { NotInput, Primal, Tangent, FwdSeed, BwdSeed };

// Node's text fields view strings the graph owns (names in Graph::records,
// targets and packets in Graph::packets), shared by every Graph derived
// from it: no copies per node, per graph.
struct Node {
  // Fields ordered by size (no padding between the small ones): 10^6 nodes
  // live in one vector, 24 bytes a node less than in declaration order.
  // 128 bytes in all (static_assert below): a 10^6-node run touches the
  // array's memory first in validation, and on the measured VM every fresh
  // megabyte costs ~1.8 ms of the kernel's page clearing.
  std::string_view name;
  std::string_view target;  // "aten.mm.default", "operator.getitem", placeholder name
  // Overload packet "aten.mm"; the target itself when it has no overload
  // (so packet == "operator.getitem" exactly when target is). Views
  // Graph::packets, which stays in cache: test the packet, not the target,
  // in per-node loops.
  std::string_view packet;

  // Node references, in pytree-leaf order (args, then kwargs by key), with
  // repeats. `positional_inputs` are the direct positional node args only.
  // Both view the graph's ref_blocks (node_refs.h).
  NodeRefs inputs;
  NodeRefs positional_inputs;

  // numel x itemsize (tensor), sum over tensor items (tuple), 1 (symbol), else 0.
  uint64_t size_bytes = 0;
  // Elements at the shape hints: a tensor's, summed over a tuple's direct
  // tensor items (as size_bytes), else 0. Read here, while the shape is in
  // cache, for the bandwidth model: reading shapes from the message later
  // missed the cache for a third of the report stage's DRAM reads (gpt2_l96).
  uint64_t numel = 0;
  int64_t ac_graph_id = 0;  // when has_ac_graph_id
  // A tensor value's TensorMeta.storage (when has_storage), read once at
  // validation: output aliasing and the memory budget ask it of every
  // tensor, and a record would be decoded each time.
  int64_t storage = 0;

  // Index into Graph::records; in a derived graph, -1 - k for overlay's
  // record k (a rewritten copy). Read it through Graph::record.
  int record_index = -1;

  OpKind op = OpKind::CallFunction;
  InputKind input_kind = InputKind::NotInput;
  ValueKind value_kind = ValueKind::Absent;
  SymKind sym_kind = SymKind::Int;
  // One bit each, so that a Node is 128 bytes (two cache lines).
  bool is_mutable : 1 = false;          // schema mutates an input
  bool impure : 1 = false;              // survives dead-code elimination
  bool has_backward_hook : 1 = false;
  bool has_storage : 1 = false;         // see storage
  bool reduction_tag : 1 = false;       // op_tags holds "reduction" (the fusion groups ask)
  bool has_memory_budget : 1 = false;   // the record sets memory_budget (effective_budget looks for the first)
  bool has_ac_graph_id : 1 = false;     // the record sets ac_graph_id (activation checkpointing's region)
  bool first_arg_is_node : 1 = false;   // args[0] is a node reference (then positional_inputs[0])
  // op_tags holds "pointwise": the fusion rules ask it of every node of
  // every pass, sweep row and report, and a record is decoded each time.
  bool pointwise_tag : 1 = false;
  // kwargs hold "out", not none: a mutation (prepare/mutation.h), asked of
  // every op by CSE, read here rather than decoding the record each time.
  bool out_kwarg : 1 = false;
  Recompute recompute = Recompute::None;
  PartitionerTag tag = PartitionerTag::None;
  // Ints and floats among the positional args, lists included, up to 255:
  // Inductor's op count of the node (estimate/inductor_op_count.h) without
  // decoding its record again (at 10^6 nodes ~70 ms of the report's CPU).
  uint8_t arg_numbers = 0;
  // A tensor value's dtype as dtype_code (dtype.h), 0 for any other value:
  // two nodes' dtypes compare without decoding their records (at 10^6
  // nodes the peak simulation's in-place test spent a sixth of its time
  // decoding them).
  uint8_t dtype = 0;

  // Field by field (text fields by content): tests compare graphs built two
  // ways (a derived graph and the same graph validated from a message).
  friend bool operator==(const Node&, const Node&) = default;
};
static_assert(sizeof(Node) == 128, "Node grew: see the note on its field order");

// Each node's distinct users, in graph order, all in one array (compressed
// rows): users[id] is a span. At 10^6 nodes a vector per node cost ~60 bytes
// a node and a heap allocation each; this costs 4 bytes plus 4 per user.
class UserLists {
 public:
  UserLists() = default;
  // Distinct users of each node, in graph order, from the nodes' inputs.
  explicit UserLists(const std::vector<Node>& nodes);

  std::span<const NodeId> operator[](NodeId id) const {
    const auto i = static_cast<size_t>(id);
    return {items_.data() + start_[i], items_.data() + start_[i + 1]};
  }
  size_t size() const { return start_.empty() ? 0 : start_.size() - 1; }
  bool empty() const { return size() == 0; }
  friend bool operator==(const UserLists&, const UserLists&) = default;

 private:
  std::vector<uint32_t> start_;  // size() + 1 offsets into items_
  std::vector<NodeId> items_;
};

struct Graph {
  // The loaded message's fields other than nodes (name, num_fwd_outputs,
  // static_lifetime_input_indices, metadata); its nodes_size() is 0.
  std::shared_ptr<const proto::Graph> header;
  // Each loaded node's serialized record and name (record_store.h), which
  // record() decodes and Node::name views.
  std::shared_ptr<const RecordStore> records;
  // A derived graph (the prepared graph) shares its source's records and
  // keeps here, as records of its own, only the nodes it changed
  // (rewritten references, tags). Encoded as the loaded ones are: a
  // decoded copy cost ~10 times the memory (gpt2_l96: 1 MB, a tenth of
  // its page faults).
  std::shared_ptr<const RecordStore> overlay;
  std::shared_ptr<const PacketPool> packets;    // the strings Node::target and Node::packet view
  std::string source;                          // file label used in error messages
  std::vector<Node> nodes;                     // topological order; output node last
  std::vector<RefBlock> ref_blocks;            // the ids Node::inputs and positional_inputs view
  UserLists users;                             // distinct users of each node, graph order
  // Node names to ids. Keys view the names in `records` (kept alive by this
  // graph). A derived graph keeps the same names, so it shares its source's
  // index instead of building one and maps the index's ids through
  // by_name_remap (kNoNode: removed); empty: no remap.
  std::shared_ptr<const NameIndex> by_name;
  std::vector<NodeId> by_name_remap;
  int64_t num_fwd_outputs = 0;
  std::vector<NodeId> outputs;                 // flattened output list; kNoNode for none/constants
  std::vector<NodeId> primals;                 // primal placeholders in order
  Flags static_lifetime;           // per node: parameter/buffer primal

  NodeId size() const { return static_cast<NodeId>(nodes.size()); }
  const Node& operator[](NodeId id) const { return nodes[static_cast<size_t>(id)]; }
  // Node `id` as loaded (or as rewritten by preparation): its args, kwargs,
  // value, tags. A decoded copy: bind it whole (`const proto::Node& pn =
  // g.record(id);` keeps it alive), never a reference into a part of it
  // (`const proto::Value& v = g.record(id).val();` dangles). A loop over
  // many records decodes into one reused message with record_into.
  proto::Node record(NodeId id) const;
  void record_into(NodeId id, proto::Node& out) const;
  // Node `id`'s record serialized into `out` (replacing it), without
  // decoding: a loaded record's bytes as stored, a rewritten one encoded
  // (encode_record); and its size in bytes.
  void record_bytes(NodeId id, std::string& out) const;
  size_t record_size(NodeId id) const;
  NodeId find(std::string_view name) const;
  NodeId output_node() const { return size() - 1; }
};

// The graph as one message: its header's fields other than nodes, and its
// nodes' records in node order (convert, and writers of whole graphs).
std::shared_ptr<proto::Graph> graph_message(const Graph& g);

// Node `id`'s tensor metadata (shape, strides, dtype), or nullopt when its
// value is not one tensor.
std::optional<proto::TensorMeta> tensor_meta(const Graph& g, NodeId id);

// The value of kwarg `key` of `node`, or null when it has none.
const proto::Arg* find_kwarg(const proto::Node& node, std::string_view key);
// The ints of `node`'s positional argument `index`, or of kwarg `key` where
// it has fewer arguments, when that is a list of literal ints (a kernel
// size, a stride); empty otherwise.
std::vector<int64_t> int_list_arg(const proto::Node& node, int index, std::string_view key);
// A node's kwargs sorted by key: protobuf's map iterates in no defined
// order, and node references are read in pytree-leaf order (kwargs by key).
std::vector<std::pair<const std::string*, const proto::Arg*>> kwargs_by_key(const proto::Node& node);
std::vector<std::pair<const std::string*, const proto::Arg*>> kwargs_by_key(
    const google::protobuf::Map<std::string, proto::Arg>& kwargs);

// The overload packet of a target: "aten.add.Tensor" -> "aten.add". Python
// callables ("operator.getitem", "torch.sym_float") are their own packet.
std::string_view packet_of(std::string_view target);

}  // namespace pt
