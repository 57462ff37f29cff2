#include "report/value_numel.h"

namespace pt {

namespace {

uint64_t tensor_numel(const proto::TensorMeta& t) {
  uint64_t n = 1;
  for (int64_t d : t.shape()) n *= static_cast<uint64_t>(d);
  return n;
}

}  // namespace

uint64_t value_numel(const Graph& g, NodeId id) {
  const auto& pn = g.proto_node(id);
  if (!pn.has_val()) return 0;
  if (pn.val().has_tensor()) return tensor_numel(pn.val().tensor());
  uint64_t n = 0;
  if (pn.val().has_tuple()) {
    for (const auto& item : pn.val().tuple().items()) {
      if (item.has_tensor()) n += tensor_numel(item.tensor());
    }
  }
  return n;
}

std::vector<uint64_t> value_numels(const Graph& g) {
  std::vector<uint64_t> out(static_cast<size_t>(g.size()));
  for (NodeId id = 0; id < g.size(); ++id) out[static_cast<size_t>(id)] = value_numel(g, id);
  return out;
}

}  // namespace pt
