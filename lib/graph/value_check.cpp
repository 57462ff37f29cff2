#include "graph/value_check.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include "graph/dtype.h"
#include "graph/errors.h"
#include "graph/printable.h"

namespace pt {

namespace {

class ValueChecker {
 public:
  ValueChecker(const std::string& source, int max_nesting) : source_(source), max_nesting_(max_nesting) {}

  void read(const NodeFields& pn, const ValueView& v, Node& n) {
    switch (v.kind_case()) {
      case ValueView::kTensor: {
        n.value_kind = ValueKind::Tensor;
        const TensorView t = v.tensor();  // one scan of the TensorMeta for both
        n.size_bytes = tensor_bytes(pn, t, "val.tensor");
        n.numel = tensor_numel(t);
        n.has_storage = t.has_storage();
        n.storage = t.storage();
        break;
      }
      case ValueView::kTuple: {
        n.value_kind = ValueKind::Tuple;
        // Nested items are checked iteratively; only direct tensor items count
        // towards the size (as PyTorch's _size_of).
        struct Item { ValueView v; std::string field; int depth; };
        std::vector<Item> stack;
        push_items(stack, v.tuple(), "val.tuple", 1);
        while (!stack.empty()) {
          Item item = std::move(stack.back());
          stack.pop_back();
          switch (item.v.kind_case()) {
            case ValueView::kTensor: {
              const TensorView t = item.v.tensor();
              const uint64_t b = tensor_bytes(pn, t, item.field + ".tensor");
              if (item.depth == 1) n.size_bytes += b, n.numel += tensor_numel(t);
              if (n.size_bytes > (uint64_t{1} << 62)) fail(pn, "val.tuple", "holds more than 2^62 bytes");
              break;
            }
            case ValueView::kTuple:
              if (item.depth >= max_nesting_) {
                fail(pn, item.field, "nests tuples deeper than " + std::to_string(max_nesting_));
              }
              push_items(stack, item.v.tuple(), item.field + ".tuple", item.depth + 1);
              break;
            case ValueView::kSym: check_sym(pn, item.v.sym(), item.field + ".sym"); break;
            case ValueView::KIND_NOT_SET: fail(pn, item.field, "has no field set");
            default: break;
          }
        }
        break;
      }
      case ValueView::kSym:
        n.value_kind = ValueKind::Sym;
        n.sym_kind = check_sym(pn, v.sym(), "val.sym");
        n.size_bytes = 1;
        break;
      case ValueView::kNone: n.value_kind = ValueKind::None; break;
      case ValueView::kOpaque:
        n.value_kind = ValueKind::Opaque;
        n.opaque_type = v.opaque();
        break;
      case ValueView::KIND_NOT_SET:
        fail(pn, "val", "has no field set (expected one of tensor, tuple, sym, none, opaque)");
    }
  }

 private:
  // A tuple's items onto the stack in order (so the last is checked first,
  // as before: the error named is the same).
  template <typename Stack>
  static void push_items(Stack& stack, const ValueTupleView& tuple, const std::string& field, int depth) {
    int k = 0;
    for (const ValueView item : tuple.items()) {
      stack.push_back({item, field + ".items[" + std::to_string(k++) + "]", depth});
    }
  }

  // `field` is a view: the per-node call passes a literal, and the field's
  // name is only spelled out (as a string) on the way to an error.
  uint64_t tensor_bytes(const NodeFields& pn, const TensorView& t, std::string_view view) {
    const auto field = [view] { return std::string(view); };
    const auto itemsize = dtype_itemsize(t.dtype());
    if (!itemsize) fail(pn, field() + ".dtype", "= '" + printable(t.dtype()) + "' is not a torch dtype");
    if (t.stride_size() != 0 && t.stride_size() != t.shape_size()) {
      fail(pn, field() + ".stride", "has " + std::to_string(t.stride_size()) + " entries but shape has " +
                                      std::to_string(t.shape_size()));
    }
    if (t.shape_expr_size() != 0 && t.shape_expr_size() != t.shape_size()) {
      fail(pn, field() + ".shape_expr", "has " + std::to_string(t.shape_expr_size()) + " entries but shape has " +
                                          std::to_string(t.shape_size()));
    }
    // Byte sizes stay below 2^62 so that sums of a few of them cannot overflow.
    constexpr uint64_t kLimit = uint64_t{1} << 62;
    uint64_t bytes = *itemsize;
    bool zero = false;
    int d = -1;
    for (const int64_t dim : t.shape()) {
      ++d;
      if (dim < 0) fail(pn, field() + ".shape[" + std::to_string(d) + "]", "= " + std::to_string(dim) + " is negative");
      if (dim == 0) zero = true;
      else if (!zero && bytes > kLimit / static_cast<uint64_t>(dim)) {
        fail(pn, field() + ".shape", "describes a tensor of more than 2^62 bytes (size overflows)");
      } else if (!zero) {
        bytes *= static_cast<uint64_t>(dim);
      }
    }
    return zero ? 0 : bytes;
  }

  // The product of the shape (exact: tensor_bytes bounds it, or a 0 makes it 0).
  static uint64_t tensor_numel(const TensorView& t) {
    uint64_t n = 1;
    for (int64_t d : t.shape()) n *= static_cast<uint64_t>(d);
    return n;
  }

  SymKind check_sym(const NodeFields& pn, const SymView& s, const std::string& field) {
    if (s.kind() == "int") return SymKind::Int;
    if (s.kind() == "float") return SymKind::Float;
    if (s.kind() == "bool") return SymKind::Bool;
    fail(pn, field + ".kind", "= '" + printable(s.kind()) + "' is not one of int, float, bool");
  }

  [[noreturn]] void fail(const NodeFields& n, const std::string& field, const std::string& what) const {
    throw InputError(source_ + ": node '" + printable(n.name()) + "': " + field + " " + what);
  }

  const std::string& source_;
  int max_nesting_;
};

}  // namespace

void read_node_value(const NodeFields& pn, const ValueView& v, const std::string& source, int max_nesting,
                     Node& n) {
  ValueChecker(source, max_nesting).read(pn, v, n);
}

}  // namespace pt
