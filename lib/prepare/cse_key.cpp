#include "prepare/cse_key.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace pt {

namespace {

// Appends tagged, length-prefixed fields, so that distinct arg trees never
// produce the same bytes. A node reference is written as `kept_as[ref]`.
class KeyWriter {
 public:
  KeyWriter(std::string& out, const std::vector<NodeId>& kept_as) : out_(out), kept_as_(kept_as) {}
  void tag(char t) { out_.push_back(t); }
  void u32(uint32_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void i64(int64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void text(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void ref(NodeId id) { u32(static_cast<uint32_t>(kept_as_[id])); }

 private:
  std::string& out_;
  const std::vector<NodeId>& kept_as_;
};

// Writes one leaf (anything but a list). Node references are read from
// `refs` (the node's inputs, which validation collected in this same order:
// args pre-order, then kwargs by key), advancing `next`. Returns false on NaN.
bool write_leaf(const proto::Arg& a, NodeRefs refs, size_t& next, KeyWriter& w) {
  switch (a.kind_case()) {
    case proto::Arg::kNode: {
      w.tag('N');
      w.ref(refs[next++]);
      break;
    }
    case proto::Arg::kInt:
      w.tag('I');
      w.i64(a.int_());
      break;
    case proto::Arg::kFloat: {
      double v = a.float_();
      if (std::isnan(v)) return false;
      if (v == 0.0) v = 0.0;  // -0.0 == 0.0 in Python
      int64_t bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      w.tag('F');
      w.i64(bits);
      break;
    }
    case proto::Arg::kBool:
      w.tag(a.bool_() ? 'T' : 'X');
      break;
    case proto::Arg::kStr:
      w.tag('S');
      w.text(a.str());
      break;
    case proto::Arg::kNone:
      w.tag('Z');
      break;
    case proto::Arg::kList:  // write_arg's; never passed here
      break;
    case proto::Arg::kDtype:
      w.tag('D');
      w.text(a.dtype());
      break;
    case proto::Arg::kDevice:
      w.tag('V');
      w.text(a.device());
      break;
    case proto::Arg::kRepr:
      w.tag('R');
      w.text(a.repr());
      break;
    case proto::Arg::KIND_NOT_SET:
      w.tag('?');  // rejected by validation; kept distinct anyway
      break;
  }
  return true;
}

void write_list_header(const proto::Arg& a, KeyWriter& w) {
  w.tag('L');
  w.u32(static_cast<uint32_t>(a.list().items_size()));
}

bool is_flat_list(const proto::Arg& a) {
  for (const proto::Arg& item : a.list().items()) {
    if (item.kind_case() == proto::Arg::kList) return false;
  }
  return true;
}

// Writes one arg tree in pre-order without recursion. A leaf or a list of
// leaves (nearly every arg: refs, ints, shapes, tensor lists) is written
// straight; only nested lists take the explicit stack, whose allocation per
// arg was a third of the key's cost (callgrind, gpt2_124m).
bool write_arg(const proto::Arg& root, NodeRefs refs, size_t& next, KeyWriter& w) {
  if (root.kind_case() != proto::Arg::kList) return write_leaf(root, refs, next, w);
  if (is_flat_list(root)) {
    write_list_header(root, w);
    for (const proto::Arg& item : root.list().items()) {
      if (!write_leaf(item, refs, next, w)) return false;
    }
    return true;
  }
  std::vector<const proto::Arg*> stack{&root};
  while (!stack.empty()) {
    const proto::Arg& a = *stack.back();
    stack.pop_back();
    if (a.kind_case() != proto::Arg::kList) {
      if (!write_leaf(a, refs, next, w)) return false;
      continue;
    }
    write_list_header(a, w);
    // Pushed in reverse, so the items pop in order.
    const auto& items = a.list().items();
    for (auto it = items.rbegin(); it != items.rend(); ++it) stack.push_back(&*it);
  }
  return true;
}

bool write_key(const Graph& g, NodeId id, KeyWriter& w, CseKeyScratch& scratch) {
  g.record_bytes(id, scratch.bytes);
  proto::NodeCall& pn = scratch.call;
  if (!pn.ParseFromString(scratch.bytes)) throw std::logic_error("cse: a stored record does not parse");
  const NodeRefs refs = g[id].inputs;
  size_t next = 0;
  w.text(pn.target());
  w.u32(static_cast<uint32_t>(pn.args_size()));
  for (const proto::Arg& arg : pn.args()) {
    if (!write_arg(arg, refs, next, w)) return false;
  }
  // Kwargs by key: the order a map gives is not part of the identity.
  w.u32(static_cast<uint32_t>(pn.kwargs().size()));
  if (pn.kwargs().empty()) return true;
  for (const auto& [k, v] : kwargs_by_key(pn.kwargs())) {
    w.text(*k);
    if (!write_arg(*v, refs, next, w)) return false;
  }
  return true;
}

}  // namespace

bool cse_key(const Graph& g, NodeId id, const std::vector<NodeId>& kept_as, std::string& out) {
  CseKeyScratch scratch;
  return cse_key(g, id, kept_as, out, scratch);
}

bool cse_key(const Graph& g, NodeId id, const std::vector<NodeId>& kept_as, std::string& out, CseKeyScratch& scratch) {
  out.clear();
  KeyWriter w(out, kept_as);
  return write_key(g, id, w, scratch);
}

}  // namespace pt
