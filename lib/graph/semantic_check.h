// Rules over a whole validated graph that a single node's fields cannot
// tell: what a getitem reads, and how the outputs line up with the inputs.
// Each throws InputError with one line naming the file, the node and the
// field:
//
// - operator.getitem takes exactly two positional arguments and no kwargs:
//   a reference to a node whose val is a tuple (PyTorch's multi-output ops;
//   joint graphs index tensors with aten ops, never getitem), and an `int`
//   item index in [0, items). Python itself would also take a negative
//   index or a bool, but AOTAutograd's tracer writes one getitem per item,
//   numbered from 0, so anything else is a graph no PyTorch produced. Its
//   val is of the item's kind (a tensor for a tensor item, ...).
// - A joint graph's outputs are its forward outputs (the first
//   num_fwd_outputs) followed by one gradient (or none) per primal input,
//   in the primals' order, as AOTAutograd lays them out.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "graph/graph.h"

namespace pt {

// What check_getitems reads of the node records, taken while validation
// has each record decoded (decoding every getitem's record and its tuple's
// again took 4% of gpt2_124m's run): each getitem's args and value kind,
// in graph order, and the item kinds of each tuple value.
class GetitemFacts {
 public:
  // Node `id` (validated as `n`, decoded as `pn`), in graph order.
  void add(NodeId id, const Node& n, const proto::Node& pn);

 private:
  friend void check_getitems(const Graph& g, const GetitemFacts& facts);
  struct Getitem {
    NodeId id = kNoNode;
    int args = 0;
    int kwargs = 0;
    proto::Arg::KindCase source = proto::Arg::KIND_NOT_SET;  // args[0]
    proto::Arg::KindCase index = proto::Arg::KIND_NOT_SET;   // args[1]
    int64_t item = 0;                                         // args[1].int
    proto::Value::KindCase val = proto::Value::KIND_NOT_SET;
  };
  std::vector<Getitem> getitems_;
  std::unordered_map<NodeId, std::vector<proto::Value::KindCase>> tuple_items_;
};

void check_getitems(const Graph& g, const GetitemFacts& facts);

// Only for joint graphs: a partition's forward and backward graphs return
// other things.
void check_gradient_outputs(const Graph& g);

}  // namespace pt
